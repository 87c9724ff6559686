use canasta_engine::bot::RandomBot;
use canasta_engine::*;
fn main() {
    let players: u8 = std::env::args()
        .nth(1)
        .map(|s| s.parse().unwrap())
        .unwrap_or(4);
    let mut concealed = 0;
    let mut outs = 0;
    let mut deals = 0;
    for seed in 0..50000u64 {
        let mut g = Game::new(&Setup::seeded(
            RuleSpec::new(Preset::Official, players),
            seed,
        ))
        .unwrap();
        let mut bot = RandomBot::new(seed);
        while g.history().is_empty() {
            let seat = g.to_act().unwrap();
            let a = bot.pick(&g.legal().unwrap());
            for e in g.apply(seat, &a).unwrap() {
                if let Event::WentOut { concealed: c, .. } = e {
                    outs += 1;
                    if c {
                        concealed += 1;
                    }
                }
            }
        }
        deals += 1;
    }
    println!("deals {deals} outs {outs} concealed {concealed}");
}
