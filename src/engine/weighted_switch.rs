//! bzm Weighted Switch Controller: each pass runs one child, chosen by weight, as the
//! plugin's `choose()` does.
//!
//! The weights are the enabled rows of the controller's table (`plan::controllers`),
//! evaluated at each pass (they may hold variables or functions) and read as Java's
//! `Long.parseLong` reads them, then divided by their sum. The n-th enabled row picks the
//! n-th child. In the default mode each user keeps how often it picked each row and
//! takes the row furthest below its share; with "random choice" a weighted draw from the
//! user's generator (so `--seed` repeats it).

use super::controllers::Flow;
use super::vu::VirtualUser;
use crate::plan::{Controller, Setting};

/// A user's picks for one controller (the plugin keeps them per thread).
#[derive(Default)]
struct Picks {
    /// How often each row was picked; sized on the first pick, as the plugin does.
    counts: Vec<u64>,
    total: u64,
}

impl VirtualUser {
    pub(super) async fn run_weighted_switch(
        &mut self,
        c: &Controller,
        weights: &[Setting],
        random: bool,
    ) -> Flow {
        let Some(shares) = self.weight_shares(c, weights) else {
            // JMeter's thread dies on the exception the plugin throws here.
            return Flow::StopThread;
        };
        let pick = if random {
            Some(random_index(&shares, rand::Rng::gen(&mut self.user.rng)))
        } else {
            let picks = self.user.slot(c.id, Picks::default);
            rotation_index(&shares, picks)
        };
        let Some(index) = pick else {
            crate::runlog::error(&format!(
                "{}: Weighted Switch Controller has no enabled row with a positive weight; the thread stops",
                c.path
            ));
            return Flow::StopThread;
        };
        self.run_one(c, index).await
    }

    /// The weights over their sum; `None` (logged) when one is not a whole number.
    fn weight_shares(&mut self, c: &Controller, weights: &[Setting]) -> Option<Vec<f64>> {
        let mut raw = Vec::with_capacity(weights.len());
        for weight in weights {
            let text = weight.text(&mut self.user.eval(""));
            match parse_java_long(&text) {
                Some(value) => raw.push(value as f64),
                None => {
                    crate::runlog::error(&format!(
                        "{}: Weighted Switch Controller weight {text:?} is not a whole number; the thread stops",
                        c.path
                    ));
                    return None;
                }
            }
        }
        let sum: f64 = raw.iter().sum();
        Some(raw.into_iter().map(|w| w / sum).collect())
    }
}

/// Java's `Long.parseLong`: an optional sign and decimal digits, nothing else.
fn parse_java_long(text: &str) -> Option<i64> {
    let digits = text.strip_prefix(['-', '+']).unwrap_or(text);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

/// The plugin's random choice: `draw` in [0, 1) times the total weight, less each weight
/// in turn until it reaches 0 or below; the first row when it never does.
fn random_index(shares: &[f64], draw: f64) -> usize {
    let total: f64 = shares.iter().sum();
    let mut left = draw * total;
    for (i, share) in shares.iter().enumerate() {
        left -= share;
        if left <= 0.0 {
            return i;
        }
    }
    0
}

/// The plugin's default choice: the first row whose share most exceeds the fraction of
/// picks it had so far (strictly above the smallest positive double); when none does,
/// the first row with the largest share. `None` where the plugin fails (no row, or
/// weights that are all zero).
fn rotation_index(shares: &[f64], picks: &mut Picks) -> Option<usize> {
    if picks.counts.is_empty() {
        picks.counts = vec![0; shares.len()];
    }
    let mut best = f64::from_bits(1); // Java's Double.MIN_VALUE
    let mut index = None;
    for (n, share) in shares.iter().enumerate() {
        let had = match picks.total {
            0 => 0.0,
            total => *picks.counts.get(n)? as f64 / total as f64,
        };
        if share - had > best {
            best = share - had;
            index = Some(n);
        }
    }
    if index.is_none() {
        for (n, share) in shares.iter().enumerate() {
            if *share > best {
                best = *share;
                index = Some(n);
            }
        }
    }
    let index = index?;
    picks.total += 1;
    *picks.counts.get_mut(index)? += 1;
    Some(index)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shares(weights: &[f64]) -> Vec<f64> {
        let sum: f64 = weights.iter().sum();
        weights.iter().map(|w| w / sum).collect()
    }

    #[test]
    fn rotation_follows_the_shares_exactly() {
        let shares = shares(&[60.0, 30.0, 10.0]);
        let mut picks = Picks::default();
        let sequence: Vec<usize> = (0..10)
            .map(|_| rotation_index(&shares, &mut picks).unwrap())
            .collect();
        // 0.6 - 0.5 is just below 0.1 in doubles: the third pick goes to the 10 % row, as in Java.
        assert_eq!(sequence, [0, 1, 2, 0, 0, 1, 0, 0, 1, 0]);
        assert_eq!(picks.counts, [6, 3, 1]);
    }

    #[test]
    fn equal_shares_met_exactly_fall_back_to_the_first_largest() {
        let shares = shares(&[1.0, 1.0]);
        let mut picks = Picks::default();
        let sequence: Vec<usize> = (0..4)
            .map(|_| rotation_index(&shares, &mut picks).unwrap())
            .collect();
        assert_eq!(sequence, [0, 1, 0, 1]);
    }

    #[test]
    fn zero_weights_or_no_rows_fail_as_the_plugin() {
        assert_eq!(
            rotation_index(&shares(&[0.0, 0.0]), &mut Picks::default()),
            None
        );
        assert_eq!(rotation_index(&[], &mut Picks::default()), None);
    }

    #[test]
    fn random_draw_walks_the_cumulative_shares() {
        let shares = shares(&[50.0, 25.0, 25.0]);
        assert_eq!(random_index(&shares, 0.0), 0);
        assert_eq!(random_index(&shares, 0.5), 0);
        assert_eq!(random_index(&shares, 0.6), 1);
        assert_eq!(random_index(&shares, 0.99), 2);
        assert_eq!(random_index(&[f64::NAN], 0.3), 0);
    }

    #[test]
    fn weights_read_as_java_long() {
        assert_eq!(parse_java_long("25"), Some(25));
        assert_eq!(parse_java_long("-3"), Some(-3));
        assert_eq!(parse_java_long(" 25"), None);
        assert_eq!(parse_java_long("2.5"), None);
        assert_eq!(parse_java_long(""), None);
    }
}
