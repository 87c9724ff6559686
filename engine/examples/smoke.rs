use canasta_engine::bot::RandomBot;
use canasta_engine::*;
fn main() {
    let specs: Vec<RuleSpec> = vec![
        RuleSpec::new(Preset::Official, 2),
        RuleSpec::new(Preset::Official, 3),
        RuleSpec::new(Preset::Official, 4),
        RuleSpec::new(Preset::Official, 5),
        RuleSpec::new(Preset::Official, 5)
            .with("five_players", "each_alone")
            .unwrap(),
        RuleSpec::new(Preset::Official, 6),
        RuleSpec::new(Preset::Official, 6)
            .with("six_players", "two_teams_of_three")
            .unwrap(),
    ];
    let mut counts = std::collections::BTreeMap::new();
    for spec in specs {
        for seed in 0..200u64 {
            let mut g = Game::new(&Setup::seeded(spec.clone(), seed)).unwrap();
            let pack = g.all_cards();
            let mut bot = RandomBot::new(seed);
            let mut acts = Vec::new();
            let mut n = 0;
            while g.history().len() < 3 && g.to_act().is_some() {
                let seat = g.to_act().unwrap();
                let v = g.view(Viewer::Seat(seat));
                acts.clear();
                v.legal().unwrap().actions(&mut acts);
                for a in &acts {
                    if let Err(e) = g.check(seat, a) {
                        panic!("enumerated illegal {a}: {e}");
                    }
                }
                let a = bot.pick(&v.legal().unwrap());
                *counts.entry(a.kind_name()).or_insert(0u64) += 1;
                if let Action::GoOut { .. } = a {}
                g.apply(seat, &a).unwrap();
                assert_eq!(g.all_cards(), pack);
                n += 1;
                assert!(n < 100000);
            }
        }
    }
    println!("{counts:?}");
}
