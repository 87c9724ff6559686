//! A bot in a second language: the Python example bot built from the stubs alone
//! (`examples/python-bot/from-stubs`), whose wire code is generated from
//! `proto/canasta/v1/*.proto` by grpcio-tools, plays whole matches on a real server beside three
//! built-in bots, and so does the example bot on the `canasta` package
//! (`examples/python-bot/bot.py`); and the bot author's guide (`docs/bots.md`) is checked against
//! those bots and the .proto files.
//!
//! The tests need Python 3.10 or newer with its `venv` module. The bot from the stubs runs in a
//! virtual environment under `target/` with the pinned packages of its `requirements.txt` and
//! the stubs generated there; both are made once, and again only when the requirements or the
//! .proto files change. The package's bot runs in the Python package's environment
//! (`canasta_tests::python_with_package`, which tests/tests/python_package.rs uses too).

mod clock;

use std::fs;
use std::io::{BufRead, BufReader, Write};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use canasta_engine::bot::{Bot, GreedyBot, RandomBot};
use canasta_engine::{Action, Rules};
use canasta_proto::convert::{action_to_wire, rules_from_wire, view_from_wire};
use canasta_proto::v1;
use canasta_tests::*;
use clock::*;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio_stream::StreamExt;

/// The longest a Python bot may take to play its match.
const MATCH_TIME_LIMIT: Duration = Duration::from_secs(180);

/// The bot built from the stubs alone.
fn bot_dir() -> PathBuf {
    workspace_root()
        .join("examples")
        .join("python-bot")
        .join("from-stubs")
}

/// The bot on the `canasta` package.
fn package_bot() -> PathBuf {
    workspace_root()
        .join("examples")
        .join("python-bot")
        .join("bot.py")
}

/// A Python environment with the bot's packages and the generated stubs.
struct PythonEnv {
    /// The virtual environment's interpreter.
    python: PathBuf,
    /// The directory holding the generated `canasta/v1/*_pb2*.py`.
    stubs: PathBuf,
    /// Where the runs keep their output.
    work: PathBuf,
}

/// The Python environment, made once per test process.
fn python_env() -> &'static PythonEnv {
    static ENV: OnceLock<PythonEnv> = OnceLock::new();
    ENV.get_or_init(make_python_env)
}

fn make_python_env() -> PythonEnv {
    let work = Path::new(env!("CARGO_TARGET_TMPDIR")).join("python-bot");
    let venv = work.join("venv");
    let python = if cfg!(windows) {
        venv.join("Scripts").join("python.exe")
    } else {
        venv.join("bin").join("python")
    };
    let requirements = bot_dir().join("requirements.txt");
    let wanted =
        fs::read_to_string(&requirements).expect("examples/python-bot/from-stubs/requirements.txt");
    // The venv records the requirements it was made with: install only when they changed (or
    // an earlier install did not finish).
    let stamp = venv.join("canasta-requirements.txt");
    if !python.exists() || fs::read_to_string(&stamp).ok().as_deref() != Some(wanted.as_str()) {
        let system = system_python("the Python bot's test");
        let _ = fs::remove_dir_all(&venv);
        fs::create_dir_all(&work).expect("a directory under target/");
        run(
            "making a Python virtual environment (on Debian and Ubuntu: apt install python3-venv)",
            Command::new(&system).arg("-m").arg("venv").arg(&venv),
        );
        run(
            "installing the Python bot's packages with pip",
            Command::new(&python)
                .args(["-m", "pip", "install", "--disable-pip-version-check"])
                .args(["--no-input", "--quiet", "-r"])
                .arg(&requirements),
        );
        fs::write(&stamp, &wanted).expect("the venv's stamp");
    }
    // The stubs, from the .proto files alone, as examples/python-bot/README.md makes them; made
    // again when a .proto file or the packages change. A new set is made aside and then put in
    // place, so that another test process never sees a half-made one.
    let stubs = work.join("stubs");
    let proto = workspace_root().join("proto");
    let mut files: Vec<PathBuf> = fs::read_dir(proto.join("canasta").join("v1"))
        .expect("proto/canasta/v1")
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "proto"))
        .collect();
    files.sort();
    assert_eq!(files.len(), 5, "the protocol's files: {files:?}");
    let mut key = wanted.clone();
    for f in &files {
        key.push_str(&fs::read_to_string(f).expect("a .proto file"));
    }
    let stamp = |dir: &Path| fs::read_to_string(dir.join("canasta-stubs-of.txt")).ok();
    if stamp(&stubs).as_deref() != Some(key.as_str()) {
        fs::create_dir_all(&work).expect("a directory under target/");
        let staging = tempfile::Builder::new()
            .prefix("stubs-")
            .tempdir_in(&work)
            .expect("the stubs' directory");
        let fresh = staging.path();
        let mut protoc = Command::new(&python);
        protoc
            .args(["-m", "grpc_tools.protoc"])
            .arg(format!("-I{}", proto.display()))
            .arg(format!("--python_out={}", fresh.display()))
            .arg(format!("--pyi_out={}", fresh.display()))
            .arg(format!("--grpc_python_out={}", fresh.display()))
            .args(&files);
        run("generating the Python stubs with grpcio-tools", &mut protoc);
        fs::write(fresh.join("canasta-stubs-of.txt"), &key).expect("the stubs' stamp");
        let _ = fs::remove_dir_all(&stubs);
        if fs::rename(fresh, &stubs).is_err() {
            // Another test process put its own in place meanwhile: the same, if it is current
            // (ours is removed with `staging`).
            assert_eq!(
                stamp(&stubs).as_deref(),
                Some(key.as_str()),
                "current stubs"
            );
        }
    }
    PythonEnv {
        python,
        stubs,
        work,
    }
}

/// A Python command with the stubs on its path.
fn python_command(env: &PythonEnv) -> Command {
    let mut c = Command::new(&env.python);
    c.env("PYTHONPATH", &env.stubs)
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .env("PYTHONUNBUFFERED", "1")
        .env_remove("PYTHONHOME")
        .env_remove("CANASTA_TOKEN")
        .env_remove("CANASTA_SERVER");
    c
}

/// One of the Python bot's output pipes.
type Pipe = Box<dyn std::io::Read + Send>;

/// A line the Python bot wrote, or the end of one of its two pipes.
enum Output {
    Out(String),
    Err(String),
    /// A pipe ended: once both have, the process has exited.
    Closed,
}

/// The Python bot as a child process, killed if the test ends first. Its output is read as it
/// comes (the test waits on the lines it expects, never for time to pass), and kept in a
/// directory under `target/` when the test fails (removed when it passes).
struct PythonBot {
    child: Child,
    dir: tempfile::TempDir,
    lines: mpsc::UnboundedReceiver<Output>,
    /// What came so far on standard output and standard error.
    out: String,
    err: String,
    /// Pipes still open.
    open: usize,
}

impl PythonBot {
    /// The bot built from the stubs.
    fn start(name: &str, server: SocketAddr, args: &[&str]) -> PythonBot {
        let mut command = python_command(python_env());
        command.arg(bot_dir().join("bot.py"));
        PythonBot::start_command(name, command, server, args)
    }

    /// The bot on the `canasta` package, in the package's environment.
    fn start_package_bot(name: &str, server: SocketAddr, args: &[&str]) -> PythonBot {
        let python = python_with_package(Path::new(env!("CARGO_TARGET_TMPDIR")));
        let mut command = Command::new(python);
        command
            .arg(package_bot())
            .env("PYTHONDONTWRITEBYTECODE", "1")
            .env("PYTHONUNBUFFERED", "1")
            .env_remove("PYTHONHOME")
            .env_remove("PYTHONPATH")
            .env_remove("CANASTA_TOKEN")
            .env_remove("CANASTA_SERVER");
        PythonBot::start_command(name, command, server, args)
    }

    fn start_command(
        name: &str,
        mut command: Command,
        server: SocketAddr,
        args: &[&str],
    ) -> PythonBot {
        let runs = python_env().work.join("runs");
        fs::create_dir_all(&runs).expect("a directory for the runs");
        let dir = tempfile::Builder::new()
            .prefix(&format!("{name}-"))
            .tempdir_in(&runs)
            .expect("a directory for the run");
        let mut child = command
            .arg("--server")
            .arg(server.to_string())
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the Python bot starts");
        let (tx, lines) = mpsc::unbounded_channel();
        let stdout: Pipe = Box::new(child.stdout.take().expect("a pipe"));
        let stderr: Pipe = Box::new(child.stderr.take().expect("a pipe"));
        let pipes = [
            (stdout, "stdout.txt", Output::Out as fn(String) -> Output),
            (stderr, "stderr.txt", Output::Err),
        ];
        for (pipe, file, wrap) in pipes {
            let mut file = fs::File::create(dir.path().join(file)).expect("a file for the output");
            let tx = tx.clone();
            // Read on a thread of its own to the end, so the bot never blocks on a full pipe;
            // each line is passed on, and kept in the run's directory.
            std::thread::spawn(move || {
                for line in BufReader::new(pipe).lines() {
                    let Ok(line) = line else { break };
                    let _ = writeln!(file, "{line}");
                    let _ = tx.send(wrap(line));
                }
                let _ = tx.send(Output::Closed);
            });
        }
        PythonBot {
            child,
            dir,
            lines,
            out: String::new(),
            err: String::new(),
            open: 2,
        }
    }

    /// The next line or pipe end; none once both pipes have ended. `within` is a guard against
    /// a hang, not a measured bound.
    async fn next(&mut self, within: Duration, waiting_for: &str) -> Option<Output> {
        if self.open == 0 {
            return None;
        }
        let next = tokio::time::timeout(within, self.lines.recv())
            .await
            .unwrap_or_else(|_| {
                panic!(
                    "the Python bot: no {waiting_for} within {within:?}:\n{}{}",
                    self.out, self.err
                )
            })
            .expect("the readers say when their pipe ends");
        match &next {
            Output::Out(line) => {
                self.out.push_str(line);
                self.out.push('\n');
            }
            Output::Err(line) => {
                self.err.push_str(line);
                self.err.push('\n');
            }
            Output::Closed => self.open -= 1,
        }
        Some(next)
    }

    /// The first line of its standard output, `game ID seat N`: the game and the seat.
    async fn joined(&mut self) -> (String, u32) {
        loop {
            match self
                .next(Duration::from_secs(60), "line `game ID seat N`")
                .await
            {
                Some(Output::Out(line)) => {
                    let words: Vec<&str> = line.split_whitespace().collect();
                    match words[..] {
                        ["game", game, "seat", seat] => {
                            return (game.to_string(), seat.parse().expect("a seat number"));
                        }
                        _ => panic!(
                            "the bot's first line is not `game ID seat N`: {line:?}\n{}",
                            self.err
                        ),
                    }
                }
                Some(_) => {}
                None => panic!(
                    "the Python bot stopped ({}) before joining:\n{}{}",
                    self.status(),
                    self.out,
                    self.err
                ),
            }
        }
    }

    /// Waits until the bot has logged `n` actions (lines `seat N: ...` on standard error).
    async fn wait_for_actions(&mut self, n: usize) {
        let mut actions = self.err.lines().filter(|l| l.starts_with("seat ")).count();
        while actions < n {
            match self.next(MATCH_TIME_LIMIT, "action").await {
                Some(Output::Err(line)) if line.starts_with("seat ") => actions += 1,
                Some(_) => {}
                None => panic!(
                    "the Python bot stopped ({}) before {n} actions:\n{}{}",
                    self.status(),
                    self.out,
                    self.err
                ),
            }
        }
    }

    /// The exit status, once both pipes have ended (the process has exited).
    fn status(&mut self) -> std::process::ExitStatus {
        self.child.wait().expect("the bot's status")
    }

    /// Kills the bot, as a crash would.
    fn kill(&mut self) {
        self.child.kill().expect("the bot is killed");
        self.child.wait().expect("the bot ends");
    }

    /// Waits for the bot's end; panics unless it succeeds, or if a built-in bot fails first.
    /// Returns its `result` line's JSON.
    async fn finish(&mut self, built_ins: &BuiltIns) -> serde_json::Value {
        let mut failed = built_ins.failed.subscribe();
        loop {
            tokio::select! {
                next = self.next(MATCH_TIME_LIMIT, "end of its match") => {
                    if next.is_none() {
                        break;
                    }
                }
                failure = failed.wait_for(Option::is_some) => {
                    let failure = failure.expect("the built-ins' sender lives").clone();
                    panic!(
                        "a built-in bot failed: {}\nthe Python bot's log:\n{}",
                        failure.unwrap_or_default(),
                        self.err
                    );
                }
            }
        }
        let status = self.status();
        assert!(
            status.success(),
            "the Python bot failed ({status}):\n{}\n{}",
            self.out,
            self.err
        );
        let last = self.out.lines().last().unwrap_or_default();
        let json = last
            .strip_prefix("result ")
            .unwrap_or_else(|| panic!("the bot's last line is not `result {{...}}`: {last:?}"));
        serde_json::from_str(json).expect("the result line is JSON")
    }
}

impl Drop for PythonBot {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
        if std::thread::panicking() {
            self.dir.disable_cleanup(true);
            eprintln!(
                "the Python bot's output is kept in {}",
                self.dir.path().display()
            );
        }
    }
}

/// How a built-in bot in this process plays its seat.
struct BuiltIn {
    bot: Box<dyn Bot>,
    /// Asks its partner "may I go out?" whenever that is legal, so that the partner must answer.
    asks_partner: bool,
}

fn greedy() -> BuiltIn {
    BuiltIn {
        bot: Box::new(GreedyBot::new()),
        asks_partner: false,
    }
}

/// What a built-in bot did in its match.
#[derive(Debug, Default)]
struct BuiltInReport {
    actions: u32,
    questions: u32,
}

/// Plays a seat with a built-in bot over the protocol, as `canasta bot` does: watch the seat's
/// stream, and on each prompt read the view, let the bot choose, and submit.
async fn play_built_in(
    addr: SocketAddr,
    game_id: String,
    seat: u32,
    token: String,
    mut me: BuiltIn,
) -> Result<BuiltInReport, String> {
    let mut client = connect(addr).await;
    let summary = client
        .get_game(v1::GetGameRequest {
            game_id: game_id.clone(),
        })
        .await
        .map_err(|s| s.to_string())?
        .into_inner()
        .game
        .ok_or("no summary")?;
    let spec =
        rules_from_wire(summary.rules.as_ref().ok_or("no rules")?).map_err(|e| e.to_string())?;
    let rules = Rules::new(&spec).map_err(|e| e.to_string())?;
    let mut stream = client
        .watch_game(authed(
            v1::WatchGameRequest {
                game_id: game_id.clone(),
                after_seq: 0,
                include_actions: false,
                include_view: false,
            },
            &token,
        ))
        .await
        .map_err(|s| s.to_string())?
        .into_inner();
    let mut report = BuiltInReport::default();
    let mut last = 0;
    while let Some(message) = stream.next().await {
        let message = message.map_err(|s| format!("seat {seat}'s stream failed: {s}"))?;
        match message.kind {
            Some(v1::watch_game_response::Kind::Event(e)) => {
                last = e.seq;
                if let Some(v1::game_event::Kind::MatchEnded(_)) = e.kind {
                    return Ok(report);
                }
            }
            Some(v1::watch_game_response::Kind::Prompt(p)) if p.seq == last => {
                let wire = client
                    .get_view(authed(
                        v1::GetViewRequest {
                            game_id: game_id.clone(),
                            include_actions: false,
                        },
                        &token,
                    ))
                    .await
                    .map_err(|s| s.to_string())?
                    .into_inner()
                    .view
                    .ok_or("no view")?;
                let view = view_from_wire(&wire, rules).map_err(|e| e.to_string())?;
                let Some(legal) = view.legal() else { continue };
                let action = if me.asks_partner && legal.check(&Action::AskPartner).is_ok() {
                    report.questions += 1;
                    Action::AskPartner
                } else {
                    me.bot.choose(&view, &legal)
                };
                let submitted = client
                    .submit_action(authed(
                        v1::SubmitActionRequest {
                            game_id: game_id.clone(),
                            expected_seq: p.seq,
                            request_id: format!("seat{seat}-{}", report.actions),
                            action: Some(action_to_wire(&action)),
                        },
                        &token,
                    ))
                    .await;
                match submitted {
                    Ok(_) => report.actions += 1,
                    Err(s) if s.code() == tonic::Code::Aborted => {}
                    Err(s) => return Err(format!("seat {seat}'s {action} was refused: {s}")),
                }
            }
            _ => {}
        }
    }
    Err(format!("seat {seat}'s stream ended before the match did"))
}

/// The built-in bots of a match, each a task of this process.
struct BuiltIns {
    tasks: Vec<JoinHandle<Option<BuiltInReport>>>,
    /// Why the first built-in bot that failed stopped, once one has.
    failed: Arc<tokio::sync::watch::Sender<Option<String>>>,
}

impl Default for BuiltIns {
    fn default() -> BuiltIns {
        BuiltIns {
            tasks: Vec::new(),
            failed: Arc::new(tokio::sync::watch::Sender::new(None)),
        }
    }
}

impl BuiltIns {
    /// Joins `seat` for a built-in bot and starts it.
    async fn start(&mut self, server: &TestServer, game_id: &str, seat: u32, me: BuiltIn) {
        let mut client = server.client().await;
        let joined = client
            .join_game(v1::JoinGameRequest {
                game_id: game_id.to_string(),
                seat: Some(seat),
                display_name: format!("built-in {seat}"),
            })
            .await
            .expect("the seat is free")
            .into_inner();
        let play = play_built_in(server.addr, game_id.to_string(), seat, joined.token, me);
        let failed = self.failed.clone();
        self.tasks.push(tokio::spawn(async move {
            match play.await {
                Ok(report) => Some(report),
                Err(e) => {
                    failed.send_if_modified(|first| {
                        let is_first = first.is_none();
                        if is_first {
                            *first = Some(e);
                        }
                        is_first
                    });
                    None
                }
            }
        }));
    }

    /// What each bot did, once every one has played to the end.
    async fn reports(self) -> Vec<BuiltInReport> {
        let mut reports = Vec::new();
        for task in self.tasks {
            let report = task.await.expect("the built-in bot's task");
            reports.push(
                report.unwrap_or_else(|| {
                    panic!("a built-in bot failed: {:?}", *self.failed.borrow())
                }),
            );
        }
        reports
    }
}

/// Every event of a game, as a spectator sees it, checked to be gapless.
async fn all_events(client: &mut Client, game_id: &str) -> Vec<v1::GameEvent> {
    let mut stream = client
        .watch_game(v1::WatchGameRequest {
            game_id: game_id.to_string(),
            after_seq: 0,
            include_actions: false,
            include_view: false,
        })
        .await
        .expect("a spectator may watch")
        .into_inner();
    let mut events: Vec<v1::GameEvent> = Vec::new();
    while let Some(m) = next_message(&mut stream).await {
        if let Some(v1::watch_game_response::Kind::Event(e)) = m.kind {
            assert_eq!(e.seq, events.len() as u64 + 1, "events without a gap");
            let end = matches!(e.kind, Some(v1::game_event::Kind::MatchEnded(_)));
            events.push(e);
            if end {
                break;
            }
        }
    }
    events
}

/// Checks a finished match the Python bot played in `seat`: the server's result, the bot's
/// result line, its answers to its partner, and that no one timed out.
async fn check_match(
    server: &TestServer,
    game_id: &str,
    seat: u32,
    result: &serde_json::Value,
    built_ins: BuiltIns,
    one_run: bool,
) {
    let mut questions = 0;
    for report in built_ins.reports().await {
        assert!(report.actions > 0);
        questions += report.questions;
    }
    let mut client = server.client().await;
    let summary = summary_of(&mut client, game_id).await;
    assert_eq!(summary.status, v1::GameStatus::Finished as i32);
    let outcome = summary.result.expect("a result");
    assert!(outcome.finished);
    assert_eq!(outcome.end, v1::MatchEndKind::Target as i32);
    let winner = outcome.winner_side.expect("a winning side");
    assert!(outcome.totals.iter().any(|&t| t >= 1000), "{outcome:?}");

    // The bot's own account of the match agrees with the server's.
    assert_eq!(result["game_id"], game_id);
    assert_eq!(result["seat"], seat);
    assert_eq!(result["side"], seat % 2);
    assert_eq!(result["winner_side"], winner);
    assert_eq!(result["won"], winner == seat % 2);
    let totals: Vec<i64> = outcome.totals.iter().map(|&t| t as i64).collect();
    assert_eq!(result["totals"], serde_json::json!(totals));
    // The package's client raises a refusal rather than count it.
    if let Some(refused) = result.get("refused") {
        assert_eq!(refused, 0, "a listed action was refused: {result}");
    }

    // The record: the bot's actions, and an answer to every question of its partner.
    let record = client
        .export_game(v1::ExportGameRequest {
            game_id: game_id.to_string(),
        })
        .await
        .expect("a finished game exports")
        .into_inner()
        .record
        .expect("a record");
    let by = |s: u32, kind: fn(&v1::action::Kind) -> bool| {
        record
            .actions
            .iter()
            .filter(|a| a.seat == s)
            .filter(|a| {
                a.action
                    .as_ref()
                    .and_then(|a| a.kind.as_ref())
                    .is_some_and(kind)
            })
            .count()
    };
    let mine = by(seat, |_| true);
    assert!(mine > 10, "the Python bot acted {mine} times");
    if one_run {
        assert_eq!(result["actions"].as_u64(), Some(mine as u64));
    }
    let partner = (seat + 2) % 4;
    let asked = by(partner, |k| matches!(k, v1::action::Kind::AskPartner(_)));
    let answered = by(seat, |k| matches!(k, v1::action::Kind::AnswerPartner(_)));
    assert_eq!(asked, questions as usize);
    assert!(asked > 0, "the partner asked");
    assert_eq!(answered, asked, "the Python bot answers every question");

    // Every event, gapless, ending with the match's end; no one ran out of time.
    let events = all_events(&mut client, game_id).await;
    assert!(matches!(
        events.last().and_then(|e| e.kind.as_ref()),
        Some(v1::game_event::Kind::MatchEnded(_))
    ));
    assert!(
        !events
            .iter()
            .any(|e| matches!(e.kind, Some(v1::game_event::Kind::TimedOut(_)))),
        "no one ran out of time"
    );
    let deals = events
        .iter()
        .filter(|e| matches!(e.kind, Some(v1::game_event::Kind::DealEnded(_))))
        .count();
    assert!(deals >= 1);
}

/// A server for a whole match, on a paused clock: no move budget runs out, and no request
/// budget refills, however long the bots take (the token rate is set high enough for a match).
async fn match_server() -> TestServer {
    let config = test_config().requests_per_second(1e6).build().unwrap();
    paused(config).await
}

fn game_request(seed: u64) -> v1::CreateGameRequest {
    v1::CreateGameRequest {
        rules: Some(rules(v1::Preset::Official, 4, &[("target_score", "1000")])),
        seed: Some(seed),
        ..Default::default()
    }
}

/// The test creates the game and three built-in bots take seats 0, 1 and 3; the Python bot joins
/// seat 2 and plays the whole match, its stream dropped on purpose every 25 events and resumed
/// by seq. Its partner in seat 0 asks "may I go out?" whenever it may.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_python_bot_joins_a_game_and_plays_a_whole_match() {
    python_env();
    let server = match_server().await;
    let mut client = server.client().await;
    let game = create_with(&mut client, game_request(11)).await;
    let id = game.game_id.clone();
    let mut built_ins = BuiltIns::default();
    for seat in [0, 1, 3] {
        let me = if seat == 0 {
            BuiltIn {
                bot: Box::new(GreedyBot::new()),
                asks_partner: true,
            }
        } else {
            greedy()
        };
        built_ins.start(&server, &id, seat, me).await;
    }
    let mut bot = PythonBot::start(
        "join",
        server.addr,
        &["--game", &id, "--seat", "2", "--resume-every", "25"],
    );
    assert_eq!(bot.joined().await, (id.clone(), 2));
    let result = bot.finish(&built_ins).await;
    assert!(
        result["streams"].as_u64().unwrap_or(0) > 2,
        "the stream was dropped and resumed: {result}"
    );
    check_match(&server, &id, 2, &result, built_ins, true).await;
    server.stop().await;
}

/// The Python bot creates the game (`--create --players 4`, with a time control) and takes seat
/// 0; built-in bots join the other seats, its partner asking "may I go out?" whenever it may.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_python_bot_creates_a_game_and_plays_a_whole_match() {
    python_env();
    let server = match_server().await;
    let mut bot = PythonBot::start(
        "create",
        server.addr,
        &[
            "--create",
            "--players",
            "4",
            "--option",
            "target_score=1000",
            "--seed",
            "5",
            "--name",
            "python",
            "--move-budget-ms",
            "20000",
        ],
    );
    let (id, seat) = bot.joined().await;
    assert_eq!(seat, 0, "the lowest free seat");
    let mut client = server.client().await;
    let summary = client
        .get_game(v1::GetGameRequest {
            game_id: id.clone(),
        })
        .await
        .expect("the bot's game")
        .into_inner()
        .game
        .expect("a summary");
    let rules = summary.rules.clone().expect("rules");
    assert_eq!(rules.preset, v1::Preset::Official as i32);
    assert_eq!(rules.player_count, 4);
    assert_eq!(
        rules.options.get("target_score").map(String::as_str),
        Some("1000")
    );
    assert_eq!(summary.seats[0].display_name, "python");
    let clock = summary.time_control.expect("a time control");
    assert_eq!(clock.move_budget_ms, 20_000);
    assert_eq!(clock.policy, v1::TimeoutPolicy::FallbackMove as i32);
    let mut built_ins = BuiltIns::default();
    built_ins.start(&server, &id, 1, greedy()).await;
    let partner = BuiltIn {
        bot: Box::new(GreedyBot::new()),
        asks_partner: true,
    };
    built_ins.start(&server, &id, 2, partner).await;
    let random = BuiltIn {
        bot: Box::new(RandomBot::new(3)),
        asks_partner: false,
    };
    built_ins.start(&server, &id, 3, random).await;
    let result = bot.finish(&built_ins).await;
    check_match(&server, &id, 0, &result, built_ins, true).await;
    server.stop().await;
}

/// The bot on the `canasta` package joins seat 2 of a game the test created and plays the
/// whole match beside three built-in bots, answering its partner (seat 0), who asks "may I go
/// out?" whenever it may; then, killed and started again with its token in a second match, it
/// plays on to that match's end.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_package_bot_plays_whole_matches() {
    python_env();
    let tmp = Path::new(env!("CARGO_TARGET_TMPDIR"));
    tokio::task::spawn_blocking(move || python_with_package(tmp))
        .await
        .expect("the package's installation");
    let server = match_server().await;
    let mut client = server.client().await;
    let game = create_with(&mut client, game_request(17)).await;
    let id = game.game_id.clone();
    let mut built_ins = BuiltIns::default();
    for seat in [0, 1, 3] {
        let me = if seat == 0 {
            BuiltIn {
                bot: Box::new(GreedyBot::new()),
                asks_partner: true,
            }
        } else {
            greedy()
        };
        built_ins.start(&server, &id, seat, me).await;
    }
    let mut bot =
        PythonBot::start_package_bot("package", server.addr, &["--game", &id, "--seat", "2"]);
    assert_eq!(bot.joined().await, (id.clone(), 2));
    let result = bot.finish(&built_ins).await;
    check_match(&server, &id, 2, &result, built_ins, true).await;

    let game = create_with(&mut client, game_request(19)).await;
    let id = game.game_id.clone();
    let token = client
        .join_game(v1::JoinGameRequest {
            game_id: id.clone(),
            seat: Some(1),
            display_name: "python".into(),
        })
        .await
        .expect("seat 1 is free")
        .into_inner()
        .token;
    let mut built_ins = BuiltIns::default();
    built_ins.start(&server, &id, 0, greedy()).await;
    let partner = BuiltIn {
        bot: Box::new(GreedyBot::new()),
        asks_partner: true,
    };
    built_ins.start(&server, &id, 3, partner).await;
    built_ins.start(&server, &id, 2, greedy()).await;
    let args = ["--game", id.as_str(), "--token", token.as_str()];
    let mut first = PythonBot::start_package_bot("package-restart-1", server.addr, &args);
    assert_eq!(first.joined().await, (id.clone(), 1));
    first.wait_for_actions(12).await;
    first.kill();
    let mut second = PythonBot::start_package_bot("package-restart-2", server.addr, &args);
    assert_eq!(second.joined().await, (id.clone(), 1));
    let result = second.finish(&built_ins).await;
    assert!(result["actions"].as_u64().unwrap_or(0) > 0, "{result}");
    check_match(&server, &id, 1, &result, built_ins, false).await;
    server.stop().await;
}

/// The package's bot needs no game id with `--seek`: as a registered player (its key in a key
/// file as `canasta register --key-file` writes it), it finds two games in a row through
/// matchmaking, is seated with the server's house players after `--fill-with-bots-after`, and
/// plays each to its end.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_package_bot_seeks_its_games_and_plays_them_with_house_players() {
    python_env();
    let tmp = Path::new(env!("CARGO_TARGET_TMPDIR"));
    tokio::task::spawn_blocking(move || python_with_package(tmp))
        .await
        .expect("the package's installation");
    let config = test_config().requests_per_second(1e6).build().unwrap();
    let server = TestServer::with_config(config).await;
    let key = canasta_tests::lobby::register(
        &mut canasta_tests::lobby::lobby(server.addr).await,
        "seeking python",
    )
    .await;
    let dir = temp_dir("python-seek");
    let key_file = dir.path().join("seeking.key");
    fs::write(
        &key_file,
        format!("# a player's key\nplayer seeking python\nkey {key}\n"),
    )
    .expect("the key file is written");
    let args = [
        "--seek",
        "--key-file",
        key_file.to_str().expect("a UTF-8 path"),
        "--games",
        "2",
        "--fill-with-bots-after",
        "50",
        "--option",
        "target_score=1000",
    ];
    let mut bot = PythonBot::start_package_bot("package-seek", server.addr, &args);
    let (first, _) = bot.joined().await;
    bot.finish(&BuiltIns::default()).await;
    let results: Vec<serde_json::Value> = bot
        .out
        .lines()
        .filter_map(|l| l.strip_prefix("result "))
        .map(|j| serde_json::from_str(j).expect("the result line is JSON"))
        .collect();
    assert_eq!(results.len(), 2, "a result per game:\n{}", bot.out);
    assert_eq!(results[0]["game_id"], first.as_str());
    assert_ne!(results[0]["game_id"], results[1]["game_id"], "two games");
    let mut client = server.client().await;
    for result in &results {
        let game = client
            .get_game(v1::GetGameRequest {
                game_id: result["game_id"].as_str().expect("an id").into(),
            })
            .await
            .expect("the game")
            .into_inner()
            .game
            .expect("a summary");
        assert_eq!(game.status, v1::GameStatus::Finished as i32, "{game:?}");
        let end = game.result.as_ref().expect("a result");
        assert_eq!(end.end, v1::MatchEndKind::Target as i32);
        assert_eq!(
            end.totals,
            serde_json::from_value::<Vec<i32>>(result["totals"].clone()).unwrap()
        );
        let seat = result["seat"].as_u64().expect("a seat") as usize;
        for s in &game.seats {
            if s.seat as usize == seat {
                assert_eq!(s.display_name, "seeking python");
                assert!(s.bot.is_empty());
            } else {
                assert!(
                    !s.bot.is_empty(),
                    "a house player fills seat {}: {game:?}",
                    s.seat
                );
            }
        }
        assert!(result["actions"].as_u64().unwrap_or(0) > 0, "{result}");
    }
    server.stop().await;
}

/// The seat is joined first and the Python bot plays it with its token (`--token`); killed in
/// the middle of the match, it is started again with the same token, reads the game from the
/// start and plays on to the end.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_python_bot_plays_on_with_its_token_after_a_restart() {
    python_env();
    let server = match_server().await;
    let mut client = server.client().await;
    let game = create_with(&mut client, game_request(7)).await;
    let id = game.game_id.clone();
    let token = client
        .join_game(v1::JoinGameRequest {
            game_id: id.clone(),
            seat: Some(1),
            display_name: "python".into(),
        })
        .await
        .expect("seat 1 is free")
        .into_inner()
        .token;
    let mut built_ins = BuiltIns::default();
    built_ins.start(&server, &id, 0, greedy()).await;
    let partner = BuiltIn {
        bot: Box::new(GreedyBot::new()),
        asks_partner: true,
    };
    built_ins.start(&server, &id, 3, partner).await;
    built_ins.start(&server, &id, 2, greedy()).await;
    let args = ["--game", id.as_str(), "--token", token.as_str()];
    let mut first = PythonBot::start("restart-1", server.addr, &args);
    assert_eq!(first.joined().await, (id.clone(), 1));
    first.wait_for_actions(12).await;
    first.kill();
    let mut second = PythonBot::start("restart-2", server.addr, &args);
    assert_eq!(second.joined().await, (id.clone(), 1));
    let result = second.finish(&built_ins).await;
    assert!(result["actions"].as_u64().unwrap_or(0) > 0, "{result}");
    check_match(&server, &id, 1, &result, built_ins, false).await;
    server.stop().await;
}

/// The bot's error handling reads what the server sends: the reason of each refusal
/// (`error_reason`, and the same from the plain metadata `canasta-reason`), the delay of a rate limit (`retry_delay`), and `Seat.call` gets through a
/// rate limit by waiting as told.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_python_bot_reads_the_reasons_of_the_servers_errors() {
    let env = python_env();
    let server = TestServer::start().await;
    let config = test_config().requests_per_second(10.0).build().unwrap();
    let limited = TestServer::with_config(config).await;
    let (bot_dir, addr, limited_addr) = (bot_dir(), server.addr, limited.addr);
    let out = tokio::task::spawn_blocking(move || {
        python_command(env)
            .arg("-c")
            .arg(ERROR_REASONS)
            .arg(&bot_dir)
            .arg(addr.to_string())
            .arg(limited_addr.to_string())
            .output()
            .expect("python runs")
    })
    .await
    .expect("the script's thread");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(
        lines,
        [
            "stale ABORTED STALE_SEQ",
            "not your turn FAILED_PRECONDITION NOT_YOUR_TURN",
            "a rule FAILED_PRECONDITION STOCK_NOT_EMPTY",
            "full FAILED_PRECONDITION GAME_FULL",
            "no game NOT_FOUND GAME_NOT_FOUND",
            "no token UNAUTHENTICATED MISSING_TOKEN",
            "bad token UNAUTHENTICATED MALFORMED_TOKEN",
            "bad option INVALID_ARGUMENT UNKNOWN_OPTION",
            "too fast RESOURCE_EXHAUSTED RATE_LIMITED delay",
            "waited 30 views",
        ]
    );
    server.stop().await;
    limited.stop().await;
}

/// Calls that the server refuses, each printed as `what CODE REASON`, with the bot's helpers.
const ERROR_REASONS: &str = r#"
import sys
sys.path.insert(0, sys.argv[1])
import grpc
import bot
from canasta.v1 import actions_pb2, game_pb2, service_pb2, service_pb2_grpc

def refused(what, call):
    try:
        call()
    except grpc.RpcError as err:
        delay = " delay" if bot.retry_delay(err, 0) > 0 else ""
        # The plain metadata (docs/bots.md) says what the ErrorInfo says.
        plain = dict(err.trailing_metadata()).get("canasta-reason", "")
        assert plain == bot.error_reason(err), (what, plain, bot.error_reason(err))
        print(what, err.code().name, bot.error_reason(err) + delay)
        return
    print(what, "accepted")

def game(stub):
    rules = game_pb2.RuleSet(preset=game_pb2.PRESET_OFFICIAL, player_count=2)
    game_id = stub.CreateGame(service_pb2.CreateGameRequest(rules=rules, seed=1)).game.game_id
    seats = [bot.Seat(stub, game_id, s, bot.join_game(stub, game_id, s, "p")[1]) for s in (0, 1)]
    return game_id, seats

stub = service_pb2_grpc.CanastaServiceStub(grpc.insecure_channel(sys.argv[2]))
game_id, seats = game(stub)
view = stub.GetView(service_pb2.GetViewRequest(game_id=game_id), metadata=seats[0].auth).view
me, other = (seats[0], seats[1]) if view.to_act == 0 else (seats[1], seats[0])
draw = actions_pb2.Action(draw_stock=actions_pb2.DrawStockAction())
decline = actions_pb2.Action(decline_pile=actions_pb2.DeclinePileAction())
refused("stale", lambda: me.submit(view.seq - 1, draw))
refused("not your turn", lambda: other.submit(view.seq, draw))
refused("a rule", lambda: me.submit(view.seq, decline))
refused("full", lambda: bot.join_game(stub, game_id, None, "late"))
refused("no game", lambda: stub.GetGame(service_pb2.GetGameRequest(game_id="nope")))
request = service_pb2.SubmitActionRequest(
    game_id=game_id, expected_seq=view.seq, request_id="r", action=draw)
refused("no token", lambda: stub.SubmitAction(request))
refused("bad token", lambda: stub.SubmitAction(request, metadata=[("authorization", "me")]))
rules = game_pb2.RuleSet(preset=game_pb2.PRESET_OFFICIAL, player_count=4, options={"nope": "1"})
refused("bad option", lambda: stub.CreateGame(service_pb2.CreateGameRequest(rules=rules)))

# A server that allows a seat 10 requests a second, in bursts of 20.
stub = service_pb2_grpc.CanastaServiceStub(grpc.insecure_channel(sys.argv[3]))
game_id, seats = game(stub)
view_request = service_pb2.GetViewRequest(game_id=game_id)
def hurry():
    for _ in range(30):
        stub.GetView(view_request, metadata=seats[0].auth)
refused("too fast", hurry)
for _ in range(30):
    seats[1].call(stub.GetView, view_request)
print("waited 30 views")
"#;

/// `docs/bots.md` speaks of the tested bot and of the protocol as it is: its Python examples are
/// taken verbatim from `bot.py` (its JavaScript ones from the tested Node.js client,
/// `tests/node/reasons.js`), its JSON examples parse as the canasta.v1 messages they name
/// (with an example of every action kind), every `bot.py` flag it uses exists, and it covers
/// every error reason of `docs/protocol.md`.
#[test]
fn the_bot_authors_guide_matches_the_bot_and_the_protocol() {
    let guide =
        fs::read_to_string(workspace_root().join("docs").join("bots.md")).expect("docs/bots.md");
    let bot = fs::read_to_string(bot_dir().join("bot.py")).expect("bot.py");
    let package = fs::read_to_string(package_bot()).expect("examples/python-bot/bot.py");
    let blocks = code_blocks(&guide);
    assert!(!blocks.is_empty());

    // Python examples: verbatim excerpts of one of the bots (indented as a whole or not).
    let bot_lines: Vec<&str> = bot.lines().collect();
    let package_lines: Vec<&str> = package.lines().collect();
    let (mut python, mut of_package) = (0, 0);
    for b in blocks.iter().filter(|b| b.lang == "python") {
        python += 1;
        if is_excerpt(&b.text, &package_lines) {
            of_package += 1;
            continue;
        }
        assert!(
            is_excerpt(&b.text, &bot_lines),
            "this example of docs/bots.md is in neither examples/python-bot/from-stubs/bot.py \
             nor examples/python-bot/bot.py:\n{}",
            b.text
        );
    }
    assert!(python >= 5, "the guide shows the bot's code");
    assert!(of_package >= 2, "the guide shows the package's bot");

    // JavaScript examples: verbatim excerpts of the tested Node.js client.
    let node_client = fs::read_to_string(
        workspace_root()
            .join("tests")
            .join("node")
            .join("reasons.js"),
    )
    .expect("tests/node/reasons.js");
    let node_lines: Vec<&str> = node_client.lines().collect();
    let mut js = 0;
    for b in blocks.iter().filter(|b| b.lang == "js") {
        js += 1;
        assert!(
            is_excerpt(&b.text, &node_lines),
            "this example of docs/bots.md is not in tests/node/reasons.js:\n{}",
            b.text
        );
    }
    assert!(js >= 2, "the guide shows how Node.js reads a reason");

    // Shell examples: every flag given to bot.py exists in one of the bots (the package's alone
    // has --seek).
    for b in blocks.iter().filter(|b| b.lang == "sh") {
        for line in b.text.lines().filter(|l| l.contains("bot.py")) {
            let after = &line[line.find("bot.py").unwrap_or(0)..];
            for flag in after
                .split_whitespace()
                .filter(|w| w.starts_with("--"))
                .map(|w| w.split('=').next().unwrap_or(w))
            {
                let quoted = format!("\"{flag}\"");
                assert!(
                    bot.contains(&quoted) || package.contains(&quoted),
                    "neither bot.py has {flag} (docs/bots.md: {line})"
                );
            }
        }
    }

    // JSON examples: each names its message in a comment just before it.
    let mut messages = Vec::new();
    for b in blocks.iter().filter(|b| b.lang == "json") {
        let name = b.message.clone().unwrap_or_else(|| {
            panic!(
                "a JSON example without `<!-- canasta.v1.X -->`:\n{}",
                b.text
            )
        });
        messages.push(serde_json::json!([name, b.text]));
    }
    let env = python_env();
    let mut check = python_command(env)
        .arg("-c")
        .arg(PARSE_MESSAGES)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("python runs");
    check
        .stdin
        .take()
        .expect("stdin")
        .write_all(serde_json::Value::Array(messages).to_string().as_bytes())
        .expect("the examples are sent");
    let out = check.wait_with_output().expect("python ends");
    assert!(
        out.status.success(),
        "a JSON example of docs/bots.md is not its message:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let parsed = String::from_utf8_lossy(&out.stdout);
    for kind in [
        "draw_stock",
        "take_pile",
        "meld",
        "discard",
        "go_out",
        "ask_partner",
        "answer_partner",
        "decline_pile",
    ] {
        assert!(
            parsed
                .lines()
                .any(|l| l == format!("canasta.v1.Action {kind}")),
            "docs/bots.md has no example of a {kind} action:\n{parsed}"
        );
    }
    assert!(parsed.lines().any(|l| l.starts_with("canasta.v1.Prompt")));

    // Every reason of the error table of docs/protocol.md, with what a bot should do.
    let protocol = fs::read_to_string(workspace_root().join("docs").join("protocol.md"))
        .expect("docs/protocol.md");
    let errors = &protocol[protocol.find("## Errors").expect("an error section")..];
    let table = errors.lines().filter(|l| l.starts_with("| ")).skip(2);
    let mut reasons = 0;
    for row in table {
        for code in row.split('`').skip(1).step_by(2) {
            if code.chars().all(|c| c.is_ascii_uppercase() || c == '_') {
                reasons += 1;
                assert!(
                    guide.contains(&format!("`{code}`")),
                    "docs/bots.md does not say what to do on {code}"
                );
            }
        }
    }
    assert!(reasons > 20, "the table of reasons was read ({reasons})");
}

/// The guide's local tournament, run as written (two matches instead of twenty) with `sh`, in a
/// folder laid out as the guide makes it (`bot.py`, `gen/`, `.venv/`), the built `canasta` on
/// the PATH and `CANASTA_SERVER` naming a server on a free port: it prints its count of wins and
/// nothing else. Regression: each built-in bot said which seat it played on standard error (60
/// lines that discarding standard output did not silence), and the wait for the bot's `game`
/// line could read its file before the shell made it (`grep: match-1.txt: No such file or
/// directory`), or the line an earlier run left there.
#[cfg(unix)]
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_guides_tournament_runs_as_written() {
    let guide =
        fs::read_to_string(workspace_root().join("docs").join("bots.md")).expect("docs/bots.md");
    let section = &guide[guide
        .find("## A local tournament")
        .expect("the tournament section")..];
    let script = code_blocks(section)
        .into_iter()
        .find(|b| b.lang == "sh" && b.text.contains("bot.py --create"))
        .expect("the tournament loop")
        .text;
    assert!(script.starts_with("n=20 "), "{script}");
    let script = script.replacen("n=20 ", "n=2 ", 1);
    let env = python_env();
    let canasta = canasta_binary();
    let runs = env.work.join("runs");
    fs::create_dir_all(&runs).expect("a directory for the runs");
    let folder = tempfile::Builder::new()
        .prefix("tournament-")
        .tempdir_in(&runs)
        .expect("the bot's folder");
    let dir = folder.path();
    fs::copy(bot_dir().join("bot.py"), dir.join("bot.py")).expect("bot.py is copied");
    let venv = env
        .python
        .parent()
        .and_then(Path::parent)
        .expect("the venv");
    std::os::unix::fs::symlink(venv, dir.join(".venv")).expect("the venv is linked");
    std::os::unix::fs::symlink(&env.stubs, dir.join("gen")).expect("the stubs are linked");
    // A line of an earlier run, which the loop must not read as this run's game.
    fs::write(dir.join("match-1.txt"), "game nosuch seat 0\n").expect("an old file");
    let server = TestServer::start().await;
    let path = std::env::join_paths(
        std::iter::once(canasta.parent().expect("the binary's folder").to_path_buf()).chain(
            std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()),
        ),
    )
    .expect("a PATH");
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(&script)
        .current_dir(dir)
        .env("PATH", path)
        .env("CANASTA_SERVER", server.addr.to_string())
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .env_remove("CANASTA_TOKEN")
        .env_remove("PYTHONPATH")
        .stdin(Stdio::null())
        .stdout(fs::File::create(dir.join("stdout.txt")).expect("stdout file"))
        .stderr(fs::File::create(dir.join("stderr.txt")).expect("stderr file"))
        .spawn()
        .expect("sh runs");
    // The script's exit, waited for on a blocking thread (the limit is a guard against a hang,
    // not a measured bound).
    let pid = child.id();
    let limit = MATCH_TIME_LIMIT * 2;
    let waited =
        tokio::time::timeout(limit, tokio::task::spawn_blocking(move || child.wait())).await;
    let status = match waited {
        Ok(status) => status
            .expect("the waiting task")
            .expect("the script's status"),
        Err(_) => {
            let _ = Command::new("kill")
                .args(["-KILL", &pid.to_string()])
                .status();
            panic!("the tournament did not finish within {limit:?}");
        }
    };
    let out = fs::read_to_string(dir.join("stdout.txt")).unwrap_or_default();
    let err = fs::read_to_string(dir.join("stderr.txt")).unwrap_or_default();
    assert!(status.success(), "{status}\n{out}{err}");
    assert_eq!(err, "", "the script's standard error");
    let wins: u32 = out
        .strip_prefix("your bot won ")
        .and_then(|rest| rest.strip_suffix(" of 2 matches\n"))
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("not the count of wins: {out:?}"));
    assert!(wins <= 2);
    for i in 1..=2 {
        let text = fs::read_to_string(dir.join(format!("match-{i}.txt"))).expect("a match file");
        assert!(
            text.starts_with("game ") && !text.contains("nosuch"),
            "{text}"
        );
        let result = text
            .lines()
            .find_map(|l| l.strip_prefix("result "))
            .unwrap_or_else(|| panic!("match {i} has no result: {text}"));
        let result: serde_json::Value = serde_json::from_str(result).expect("JSON");
        assert!(result["won"].is_boolean(), "{result}");
    }
    server.stop().await;
}

/// Parses `[[message name, JSON], ...]` from standard input as canasta.v1 messages (unknown
/// fields refused); prints each message's name and, for an Action, its kind.
const PARSE_MESSAGES: &str = r#"
import json, sys
from google.protobuf import descriptor_pool, json_format, message_factory
from canasta.v1 import service_pb2  # registers every canasta.v1 message
for name, text in json.load(sys.stdin):
    descriptor = descriptor_pool.Default().FindMessageTypeByName(name)
    message = json_format.Parse(text, message_factory.GetMessageClass(descriptor)())
    kind = message.WhichOneof("kind") if name == "canasta.v1.Action" else ""
    print(name, kind)
"#;

/// A fenced code block of a Markdown page.
struct Block {
    lang: String,
    text: String,
    /// The message a `<!-- canasta.v1.X -->` comment right before the block names.
    message: Option<String>,
}

fn code_blocks(markdown: &str) -> Vec<Block> {
    let mut blocks = Vec::new();
    let mut current: Option<Block> = None;
    let mut previous = "";
    for line in markdown.lines() {
        match (&mut current, line.trim_start().strip_prefix("```")) {
            (None, Some(lang)) => {
                let message = previous
                    .trim()
                    .strip_prefix("<!--")
                    .and_then(|c| c.strip_suffix("-->"))
                    .map(|c| c.trim().to_string());
                current = Some(Block {
                    lang: lang.trim().to_string(),
                    text: String::new(),
                    message,
                });
            }
            (Some(_), Some(_)) => blocks.extend(current.take()),
            (Some(b), None) => {
                b.text.push_str(line);
                b.text.push('\n');
            }
            (None, None) => {}
        }
        if !line.trim().is_empty() {
            previous = line;
        }
    }
    blocks
}

/// True if `text` is a run of consecutive `lines`, all shifted by the same indentation.
fn is_excerpt(text: &str, lines: &[&str]) -> bool {
    let wanted: Vec<&str> = text.lines().collect();
    let Some(first) = wanted.first() else {
        return false;
    };
    (0..lines.len()).any(|start| {
        let Some(indent) = lines[start].strip_suffix(first) else {
            return false;
        };
        indent.chars().all(|c| c == ' ')
            && wanted.iter().enumerate().all(|(i, w)| {
                lines.get(start + i).is_some_and(|l| {
                    (w.is_empty() && l.trim().is_empty()) || *l == format!("{indent}{w}")
                })
            })
    })
}
