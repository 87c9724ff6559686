use canasta_engine::bot::RandomBot;
use canasta_engine::*;
fn main() {
    let mut worst = 0;
    for seed in 0..50000u64 {
        let mut g = Game::new(&Setup::seeded(RuleSpec::new(Preset::Official, 4), seed)).unwrap();
        let mut bot = RandomBot::new(seed);
        while g.history().is_empty() {
            let seat = g.to_act().unwrap();
            let t = std::time::Instant::now();
            let n = g.legal().unwrap().to_vec().len();
            let el = t.elapsed();
            if n > worst || el.as_millis() > 50 {
                worst = worst.max(n);
                println!(
                    "seed {seed} n {n} {:?} hand {} melds {:?}",
                    el,
                    g.hand(seat),
                    g.melds(g.table().side_of(seat)).len()
                );
            }
            let a = bot.pick(&g.legal().unwrap());
            g.apply(seat, &a).unwrap();
        }
    }
}
