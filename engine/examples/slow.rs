use canasta_engine::bot::RandomBot;
use canasta_engine::*;
fn main() {
    let seed: u64 = std::env::args().nth(1).unwrap().parse().unwrap();
    let mut g = Game::new(&Setup::seeded(RuleSpec::new(Preset::Official, 4), seed)).unwrap();
    let mut bot = RandomBot::new(seed);
    while g.history().is_empty() {
        let seat = g.to_act().unwrap();
        let t = std::time::Instant::now();
        let v = g.legal().unwrap().to_vec();
        if t.elapsed().as_millis() > 1000 {
            let side = g.table().side_of(seat);
            println!(
                "phase {:?} seat {:?} melded_before {} flags {:?} side_melded {} min {}",
                g.phase(),
                seat,
                g.melded_before(seat),
                g.turn_flags(),
                g.side_melded(side),
                g.minimum(side)
            );
            for m in g.melds(side) {
                println!("  meld {:?} {} by {:?}", m.kind, m.cards, m.creator);
            }
            println!("hand {}", g.hand(seat));
            println!("{} actions", v.len());
            for a in v
                .iter()
                .filter(|a| matches!(a, Action::GoOut { .. }))
                .take(3)
            {
                println!("  {a}");
            }
            return;
        }
        let a = bot.pick(&g.legal().unwrap());
        g.apply(seat, &a).unwrap();
    }
}
