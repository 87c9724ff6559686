//! The rules reference and the rule ids the repository cites agree.
//!
//! `docs/rules.md` defines every rule of the engine under an id (`R-PILE-3`), each in a list item
//! that starts with the id in bold. Tests name the ids of the rules they check, and the engine's
//! code names the rules it implements. These tests keep the three honest:
//!
//! - every id cited anywhere (Rust, Python, `.proto`, Markdown) is defined in `docs/rules.md`,
//!   once, and the definitions of a family run in order;
//! - every id defined there is cited by a test: a file under a `tests` directory, or a
//!   `#[cfg(test)]` module;
//! - no bot cites a rule id: a bot's heuristics are not rules, and an id in a bot (or in its
//!   tests) would pass a heuristic off as a rule and its test as the rule's test. The rules a bot
//!   obeys come from the legal actions it chooses among.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

/// The rules reference, relative to the repository root.
const RULES_DOC: &str = "docs/rules.md";

/// Kinds of files searched for rule ids.
const EXTENSIONS: &[&str] = &["rs", "py", "proto", "md"];

/// Directories never searched: build output, version control, caches, virtual environments.
const SKIPPED_DIRS: &[&str] = &["target", "node_modules", "__pycache__"];

/// Where bots live: no rule id belongs there (see the module comment).
const BOT_PATHS: &[&str] = &["engine/src/bot/", "examples/"];

/// One occurrence of a rule id.
#[derive(Clone, Debug)]
struct Citation {
    id: String,
    /// Path relative to the repository root, with `/` separators.
    path: String,
    /// 1-based line number.
    line: usize,
    /// In a test: a file under a `tests` directory or a `#[cfg(test)]` module.
    in_test: bool,
    /// The defining list item of `docs/rules.md`.
    definition: bool,
}

impl Citation {
    fn place(&self) -> String {
        format!("{}:{}", self.path, self.line)
    }
}

/// Every searched file under `dir`, sorted, as paths relative to `root`.
fn files(root: &Path, dir: &Path, out: &mut Vec<String>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
        .map(|e| e.expect("a directory entry").path())
        .collect();
    entries.sort();
    for path in entries {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if path.is_dir() {
            if !name.starts_with('.') && !SKIPPED_DIRS.contains(&name) {
                files(root, &path, out);
            }
        } else if path
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| EXTENSIONS.contains(&e))
        {
            let rel = path.strip_prefix(root).expect("under the root");
            let parts: Vec<_> = rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy())
                .collect();
            out.push(parts.join("/"));
        }
    }
}

/// The rule ids in a line, by the pattern `R-[A-Z]+-[0-9]+[a-z]?` with no letter or digit
/// before it (so `PR-…` or `XR-…` are not ids).
fn ids_in(line: &str) -> Vec<String> {
    let b = line.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i + 1 < b.len() {
        let starts = b[i] == b'R'
            && b[i + 1] == b'-'
            && (i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_'));
        if !starts {
            i += 1;
            continue;
        }
        let mut j = i + 2;
        let family = j;
        while j < b.len() && b[j].is_ascii_uppercase() {
            j += 1;
        }
        if j == family || j >= b.len() || b[j] != b'-' {
            i += 1;
            continue;
        }
        j += 1;
        let number = j;
        while j < b.len() && b[j].is_ascii_digit() {
            j += 1;
        }
        if j == number {
            i += 1;
            continue;
        }
        // An optional lowercase letter after the number, unless it starts a word.
        if j < b.len()
            && b[j].is_ascii_lowercase()
            && !b.get(j + 1).is_some_and(|c| c.is_ascii_alphanumeric())
        {
            j += 1;
        }
        out.push(line[i..j].to_string());
        i = j;
    }
    out
}

/// Which lines of a Rust file are inside a `#[cfg(test)]` module: from the attribute to the
/// closing brace at the module's indentation (the layout rustfmt gives).
fn test_module_lines(text: &str) -> Vec<bool> {
    let lines: Vec<&str> = text.lines().collect();
    let mut in_test = vec![false; lines.len()];
    let mut i = 0;
    while i < lines.len() {
        let attr = lines[i].trim_start();
        let next = lines.get(i + 1).map(|l| l.trim_start()).unwrap_or("");
        let opens_module = (next.starts_with("mod ") || next.starts_with("pub mod "))
            && next.trim_end().ends_with('{');
        if attr.trim_end() == "#[cfg(test)]" && opens_module {
            let indent = &lines[i][..lines[i].len() - attr.len()];
            let close = format!("{indent}}}");
            let end = (i + 2..lines.len())
                .find(|&k| lines[k].trim_end() == close)
                .unwrap_or(lines.len() - 1);
            for flag in &mut in_test[i..=end] {
                *flag = true;
            }
            i = end + 1;
        } else {
            i += 1;
        }
    }
    in_test
}

/// Every rule id in the repository, in path and line order.
fn citations() -> Vec<Citation> {
    let root = canasta_tests::workspace_root();
    let mut paths = Vec::new();
    files(&root, &root, &mut paths);
    assert!(
        paths.iter().any(|p| p == RULES_DOC),
        "{RULES_DOC} not found under {}",
        root.display()
    );
    let mut out = Vec::new();
    for path in paths {
        let bytes = std::fs::read(root.join(&path)).unwrap_or_else(|e| panic!("{path}: {e}"));
        let text = String::from_utf8_lossy(&bytes);
        let test_file = path.split('/').rev().skip(1).any(|dir| dir == "tests");
        let test_lines = if path.ends_with(".rs") {
            test_module_lines(&text)
        } else {
            Vec::new()
        };
        for (n, line) in text.lines().enumerate() {
            let definition = path == RULES_DOC && line.starts_with("- **R-");
            for (k, id) in ids_in(line).into_iter().enumerate() {
                out.push(Citation {
                    id,
                    path: path.clone(),
                    line: n + 1,
                    in_test: test_file || test_lines.get(n).copied().unwrap_or(false),
                    definition: definition && k == 0,
                });
            }
        }
    }
    out
}

/// The ids `docs/rules.md` defines, with their citations (the first is the definition).
fn definitions(all: &[Citation]) -> BTreeMap<String, Vec<&Citation>> {
    let mut defs: BTreeMap<String, Vec<&Citation>> = BTreeMap::new();
    for c in all.iter().filter(|c| c.definition) {
        defs.entry(c.id.clone()).or_default().push(c);
    }
    defs
}

/// Fails with one line per problem.
fn report(what: &str, problems: Vec<String>) {
    if problems.is_empty() {
        return;
    }
    let mut msg = format!("{what} ({} problem(s)):\n", problems.len());
    for p in &problems {
        let _ = writeln!(msg, "  {p}");
    }
    panic!("{msg}");
}

#[test]
fn the_id_pattern_finds_ids_and_nothing_else() {
    assert_eq!(ids_in("// R-PILE-3: a frozen pile"), ["R-PILE-3"]);
    assert_eq!(ids_in("(R-INIT-3, R-SAMBA-5)."), ["R-INIT-3", "R-SAMBA-5"]);
    // Built at run time: written out, this id (which no rule has) would be cited here.
    let lettered = format!("R-{}-4a", "PILE");
    assert_eq!(
        ids_in(&format!("`{lettered}` and R-OUT-4th")),
        [lettered.as_str(), "R-OUT-4"]
    );
    assert!(ids_in("R-DEAL, PR-PILE-3, R-PILE-, R-pile-3, r_pile_3, XR-OUT-1").is_empty());
    let src = "fn a() {}\n#[cfg(test)]\nmod tests {\n    // R-CARD-1\n}\nfn b() {}\n";
    assert_eq!(
        test_module_lines(src),
        [false, true, true, true, true, false]
    );
}

#[test]
fn every_cited_rule_id_is_defined_in_the_rules_reference() {
    let all = citations();
    let defs = definitions(&all);
    assert!(
        defs.len() >= 50,
        "{RULES_DOC} defines only {} rule ids: is its format (`- **R-…**` list items) intact?",
        defs.len()
    );
    let mut problems = Vec::new();
    for c in all.iter().filter(|c| !defs.contains_key(&c.id)) {
        problems.push(format!(
            "{} cited at {} is not defined in {RULES_DOC}: define it there (a list item `- **{}** …`) or cite the rule that is meant",
            c.id,
            c.place(),
            c.id
        ));
    }
    report("rule ids cited but not defined", problems);
}

#[test]
fn every_rule_is_defined_once_and_in_order() {
    let all = citations();
    let mut problems = Vec::new();
    for (id, places) in definitions(&all) {
        if places.len() > 1 {
            let lines: Vec<String> = places.iter().map(|c| c.place()).collect();
            problems.push(format!(
                "{id} is defined {} times: {}",
                places.len(),
                lines.join(", ")
            ));
        }
    }
    // Within a family the numbers rise, so a reader finds a rule by its id.
    let mut last: BTreeMap<String, (u32, String)> = BTreeMap::new();
    for c in all.iter().filter(|c| c.definition) {
        let (family, rest) = c.id[2..].split_once('-').expect("R-FAMILY-N");
        let number: u32 = rest
            .trim_end_matches(|ch: char| ch.is_ascii_lowercase())
            .parse()
            .expect("a number");
        if let Some((before, place)) = last.get(family)
            && *before > number
        {
            problems.push(format!(
                "{} at {} comes after R-{family}-{before} at {place}: keep a family's rules in order",
                c.id,
                c.place()
            ));
        }
        last.insert(family.to_string(), (number, c.place()));
    }
    report("rule definitions out of shape", problems);
}

#[test]
fn every_defined_rule_is_cited_by_a_test() {
    let all = citations();
    let mut problems = Vec::new();
    for (id, places) in definitions(&all) {
        if !all.iter().any(|c| c.id == id && c.in_test) {
            let elsewhere: Vec<String> = all
                .iter()
                .filter(|c| c.id == id && !c.definition)
                .map(|c| c.place())
                .collect();
            problems.push(format!(
                "{id} (defined at {}) is cited by no test; write one that checks the rule and names {id} (engine/tests/rules_*.rs){}",
                places[0].place(),
                if elsewhere.is_empty() {
                    String::new()
                } else {
                    format!("; cited only at {}", elsewhere.join(", "))
                }
            ));
        }
    }
    report("rules without a test", problems);
}

#[test]
fn no_bot_cites_a_rule_id() {
    let problems: Vec<String> = citations()
        .iter()
        .filter(|c| BOT_PATHS.iter().any(|p| c.path.starts_with(p)))
        .map(|c| {
            format!(
                "{} cited at {}: a bot's heuristic is not a rule; describe the heuristic without the id (the rules reach a bot through its legal actions)",
                c.id,
                c.place()
            )
        })
        .collect();
    report("rule ids in bots", problems);
}
