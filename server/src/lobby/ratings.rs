//! Ratings: Weng-Lin (the Bayesian rating system of OpenSkill, through `skillratings`), one
//! rating per player and family of rules (preset and player count).
//!
//! Why Weng-Lin: Canasta is played by two or three sides, of one to three players each, and a
//! rating must come from each player's share in a side's result. Elo and Glicko rate two single
//! players; TrueSkill handles teams but is patented and trademarked; Weng-Lin ("A Bayesian
//! Approximation Method for Online Ranking", 2011) handles any number of teams of any size
//! with a closed-form update (no iterative message passing), keeps each player's uncertainty
//! (sigma) beside its skill (mu), and shrinks it as games come in. Ranking by `mu - 3 sigma`
//! puts a new player (25 - 3 * 25/3 = 0) below anyone the system is sure of.

use skillratings::MultiTeamOutcome;
use skillratings::weng_lin::{WengLinConfig, WengLinRating, weng_lin_multi_team};

/// A player's rating in one family.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rating {
    /// Estimated skill.
    pub mu: f64,
    /// Its uncertainty (a standard deviation).
    pub sigma: f64,
    /// Rated games.
    pub games: u32,
    /// Rated games won.
    pub wins: u32,
}

impl Default for Rating {
    fn default() -> Self {
        let r = WengLinRating::new();
        Rating {
            mu: r.rating,
            sigma: r.uncertainty,
            games: 0,
            wins: 0,
        }
    }
}

impl Rating {
    /// The conservative value shown and ranked by: mu - 3 sigma.
    pub fn display(&self) -> f64 {
        self.mu - 3.0 * self.sigma
    }
}

/// The ratings after one game. `sides[k]` holds the ratings of side k's players and
/// `places[k]` the side's place (1 for the best; equal places tie). Returns the new ratings in
/// the same shape, with each player's games and wins counted (a win: place 1 alone).
pub fn rate(sides: &[Vec<Rating>], places: &[usize]) -> Vec<Vec<Rating>> {
    let teams: Vec<Vec<WengLinRating>> = sides
        .iter()
        .map(|side| {
            side.iter()
                .map(|r| WengLinRating {
                    rating: r.mu,
                    uncertainty: r.sigma,
                })
                .collect()
        })
        .collect();
    let input: Vec<(&[WengLinRating], MultiTeamOutcome)> = teams
        .iter()
        .zip(places)
        .map(|(team, &place)| (team.as_slice(), MultiTeamOutcome::new(place)))
        .collect();
    let updated = weng_lin_multi_team(&input, &WengLinConfig::new());
    let winners = places.iter().filter(|&&p| p == 1).count();
    sides
        .iter()
        .zip(updated)
        .zip(places)
        .map(|((old, new), &place)| {
            old.iter()
                .zip(new)
                .map(|(o, n)| Rating {
                    mu: n.rating,
                    sigma: n.uncertainty,
                    games: o.games + 1,
                    wins: o.wins + u32::from(place == 1 && winners == 1),
                })
                .collect()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    // A win raises the winners' mu and lowers the losers', by the same amount for partners of
    // equal ratings; every sigma shrinks; games and wins are counted.
    #[test]
    fn a_partnership_game_moves_winners_up_and_losers_down() {
        let new = Rating::default();
        let after = rate(&[vec![new, new], vec![new, new]], &[2, 1]);
        let (losers, winners) = (&after[0], &after[1]);
        assert!(winners[0].mu > new.mu && losers[0].mu < new.mu);
        assert!((winners[0].mu - winners[1].mu).abs() < 1e-12);
        assert!(((winners[0].mu - new.mu) + (losers[0].mu - new.mu)).abs() < 1e-9);
        for r in after.iter().flatten() {
            assert!(r.sigma < new.sigma);
            assert_eq!(r.games, 1);
        }
        assert_eq!((winners[0].wins, losers[0].wins), (1, 0));
        assert_eq!(new.display(), new.mu - 3.0 * new.sigma);
    }

    // An upset moves ratings more than an expected result; three sides are ranked in order.
    #[test]
    fn upsets_move_more_and_three_sides_are_ordered() {
        let strong = Rating {
            mu: 35.0,
            sigma: 2.0,
            ..Rating::default()
        };
        let weak = Rating {
            mu: 15.0,
            sigma: 2.0,
            ..Rating::default()
        };
        let expected = rate(&[vec![strong], vec![weak]], &[1, 2]);
        let upset = rate(&[vec![strong], vec![weak]], &[2, 1]);
        assert!(upset[1][0].mu - weak.mu > expected[0][0].mu - strong.mu);
        let n = Rating::default();
        let three = rate(&[vec![n, n], vec![n, n], vec![n, n]], &[1, 2, 3]);
        assert!(three[0][0].mu > three[1][0].mu && three[1][0].mu > three[2][0].mu);
        // A tie for first is no win.
        let tie = rate(&[vec![n], vec![n]], &[1, 1]);
        assert_eq!(tie[0][0].wins + tie[1][0].wins, 0);
    }
}

#[cfg(test)]
mod measured {
    use super::*;
    use canasta_engine::bot::{by_name, play};
    use canasta_engine::rules::{Preset, RuleSpec};
    use canasta_engine::{Game, Setup};

    // On real results: two greedy partners against two random ones in 400 four-player official
    // matches (the engine's bots, in this process, the sides swapped every match), each result
    // rated as the lobby rates one. Greedy's conservative rating passes random's optimistic
    // one (mu - 3 sigma above mu + 3 sigma): the uncertainty intervals no longer overlap.
    // Measured: greedy won all 400; mu 44.7 and 5.3, sigma 5.8 each (27.3 against 22.7). Weng-Lin
    // shrinks sigma little on results it expected (after 120 straight wins it was still 6.3,
    // and the 3-sigma intervals still touched): separating two players this far apart takes
    // a few hundred games, fewer between players closer in skill, whose results say more.
    #[test]
    fn greedy_partners_rate_above_random_ones_with_separate_uncertainty() {
        let mut greedy = [Rating::default(); 2];
        let mut random = [Rating::default(); 2];
        for m in 0..400u64 {
            let setup = Setup::seeded(RuleSpec::new(Preset::Official, 4), m);
            let mut game = Game::new(&setup).expect("a valid setup");
            // Seats 0 and 2 are side 0: greedy there in even matches.
            let greedy_side = (m % 2) as usize;
            let mut bots: Vec<_> = (0..4)
                .map(|s| {
                    let name = if s % 2 == greedy_side {
                        "greedy"
                    } else {
                        "random"
                    };
                    by_name(name, m * 4 + s as u64).expect("a built-in bot")
                })
                .collect();
            play(&mut game, &mut bots, 1000, |_| {}).expect("the match ends");
            let winner = game.winner().expect("a winner").index();
            let places = [1 + usize::from(winner != 0), 1 + usize::from(winner != 1)];
            let mut sides = vec![Vec::new(), Vec::new()];
            sides[greedy_side] = greedy.to_vec();
            sides[1 - greedy_side] = random.to_vec();
            let after = rate(&sides, &places);
            greedy.copy_from_slice(&after[greedy_side]);
            random.copy_from_slice(&after[1 - greedy_side]);
        }
        for g in greedy {
            for r in random {
                assert!(
                    g.display() > r.mu + 3.0 * r.sigma,
                    "greedy {g:?} against random {r:?}"
                );
            }
        }
        assert!(greedy[0].wins > 300, "{greedy:?}");
    }
}
