use canasta_engine::bot::RandomBot;
use canasta_engine::*;
use std::time::Instant;
fn main() {
    let spec = RuleSpec::new(Preset::Official, 4);
    let t = Instant::now();
    let mut actions = 0u64;
    let mut deals = 0u64;
    let mut events = Vec::new();
    let mut bot = RandomBot::new(1);
    let mut view = None;
    for seed in 0..3000u64 {
        let mut g = Game::new(&Setup::seeded(spec.clone(), seed)).unwrap();
        while g.history().is_empty() {
            let seat = g.to_act().unwrap();
            let v = view.get_or_insert_with(|| g.view(Viewer::Seat(seat)));
            g.view_into(Viewer::Seat(seat), v);
            let a = bot.pick(&v.legal().unwrap());
            events.clear();
            g.apply_into(seat, &a, &mut events).unwrap();
            actions += 1;
        }
        deals += 1;
    }
    let s = t.elapsed().as_secs_f64();
    println!(
        "{actions} actions {deals} deals in {s:.2}s: {:.0} actions/s {:.0} deals/s",
        actions as f64 / s,
        deals as f64 / s
    );
    // direct loop without views
    let t = Instant::now();
    let mut actions = 0u64;
    let mut buf = Vec::new();
    let mut rng = canasta_engine::rng::Xoshiro256::seed_from_u64(5);
    for seed in 0..3000u64 {
        let mut g = Game::new(&Setup::seeded(spec.clone(), seed)).unwrap();
        while g.history().is_empty() {
            let seat = g.to_act().unwrap();
            buf.clear();
            g.legal_actions(&mut buf);
            let a = buf.swap_remove(rng.below(buf.len() as u64) as usize);
            events.clear();
            g.apply_into(seat, &a, &mut events).unwrap();
            actions += 1;
        }
    }
    let s = t.elapsed().as_secs_f64();
    println!("no views: {:.0} actions/s", actions as f64 / s);
}
