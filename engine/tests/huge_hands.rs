//! Bounded work on huge hands: a player who never melds (a hostile client, or a bot that
//! hoards) can hold fifty cards before its side's initial meld, and such a hand has millions
//! of irreducible initial melds. A server summarises and lists a player's choices at every
//! turn (`canasta.v1.LegalChoices`): both must stay bounded, and say when they were cut.

use canasta_engine::legal::LIST_STEPS;
use canasta_engine::{Action, Game, Phase, Preset, RuleSpec, Setup};

/// Samba for two, from scores that ask the highest minimum, both seats drawing and
/// discarding without ever melding until `seat` holds `cards` cards in its play phase.
fn hoarding_game(seed: u64, cards: usize) -> Game {
    let rules = RuleSpec::new(Preset::Samba, 2)
        .with("hand_size", "20")
        .expect("an option");
    let mut setup = Setup::seeded(rules, seed);
    setup.start_scores = vec![8000, 8000];
    let mut game = Game::new(&setup).expect("a game");
    loop {
        let seat = game.to_act().expect("the deal goes on");
        let legal = game.legal().expect("choices");
        match legal.phase() {
            Phase::Draw => {
                game.apply(seat, &Action::DrawStock).expect("a draw");
            }
            Phase::Play if legal.hand().len() >= cards => return game,
            Phase::Play => {
                // The lowest card that is no red three: nothing for the opponent to take.
                let card = legal
                    .hand()
                    .iter_kinds()
                    .map(|(c, _)| c)
                    .find(|c| !c.is_wild())
                    .expect("a natural card");
                game.apply(seat, &Action::Discard { card })
                    .expect("a discard");
            }
            other => panic!("unexpected phase {other:?}"),
        }
    }
}

#[test]
fn a_huge_hand_is_listed_and_summarised_within_bounds() {
    let game = hoarding_game(1, 48);
    let legal = game.legal().expect("choices");
    assert!(legal.hand().len() >= 48);

    // The step bound cuts the full list: the hand has more initial melds than it allows.
    let mut listed = Vec::new();
    let complete = legal.actions_up_to(&mut listed, usize::MAX);
    assert!(
        !complete,
        "the listing of {} cards was not cut",
        legal.hand().len()
    );
    assert!(!listed.is_empty() && listed.len() as u64 <= LIST_STEPS);
    // A prompt's list stops at its length, and everything listed is legal.
    let mut prompt = Vec::new();
    assert!(!legal.actions_up_to(&mut prompt, 2000));
    assert_eq!(prompt.len(), 2000);
    assert_eq!(prompt[..], listed[..2000]);
    for a in &prompt {
        assert_eq!(legal.check(a), Ok(()), "{a}");
    }

    // The summary: the flags exact, the meld lists legal whether or not the search was cut.
    let summary = legal.summary();
    assert!(summary.can_discard && !summary.can_draw);
    assert!(summary.minimum_remaining >= 120, "{summary:?}");
    let seen_in_list: Vec<_> = prompt
        .iter()
        .flat_map(|a| match a {
            Action::Meld { melds } => melds.iter().copied().collect::<Vec<_>>(),
            _ => vec![],
        })
        .filter_map(|m| {
            m.cards
                .iter()
                .find(|c| c.is_natural())
                .map(|c| c.rank())
                .filter(|&r| {
                    m.cards
                        .iter()
                        .filter(|c| c.is_natural())
                        .all(|c| c.rank() == r)
                })
        })
        .collect();
    for rank in &seen_in_list {
        assert!(
            summary.meld_ranks.contains(rank) || !summary.complete,
            "{rank:?} listed, not in {summary:?}"
        );
    }
    assert!(!summary.meld_ranks.is_empty());
    for rank in &summary.meld_ranks {
        assert!(legal.hand().rank_count(*rank) >= 2, "{rank:?}");
    }
}

#[test]
fn the_server_s_fallback_bot_moves_on_a_huge_hand() {
    use canasta_engine::Viewer;
    use canasta_engine::bot::{Bot, SafeBot};
    let game = hoarding_game(2, 48);
    let seat = game.to_act().expect("a seat");
    let view = game.view(Viewer::Seat(seat));
    let legal = game.legal().expect("choices");
    let action = SafeBot::new().choose(&view, &legal);
    assert!(matches!(action, Action::Discard { .. }), "{action}");
    assert_eq!(legal.check(&action), Ok(()));
}
