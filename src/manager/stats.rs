//! Match statistics: W-L-D, score, Elo difference with a 95% interval, likelihood of superiority, and the
//! generalized SPRT on trinomial (single games) or pentanomial (game pairs) counts.
//!
//! Elo is the logistic Elo (`score = 1 / (1 + 10^(-elo/400))`), the same scale as cutechess and the classic
//! fishtest bounds. The SPRT log-likelihood ratio is the exact multinomial GSPRT: for each hypothesis the
//! maximum-likelihood distribution whose expected score equals that hypothesis's score, compared with the
//! observed frequencies (the method of fishtest's LLR calculator, written from its description).

/// Two-sided 95% quantile of the standard normal distribution.
const Z95: f64 = 1.959_963_984_540_054;

/// Counts below this are raised to it before the SPRT, so that a sample with only one kind of result still has
/// a finite LLR (fishtest does the same regularization).
const REGULARIZE: f64 = 1e-3;

/// Logistic Elo difference for an expected score in (0, 1); ±infinity at the ends.
pub fn score_to_elo(score: f64) -> f64 {
    if score <= 0.0 {
        f64::NEG_INFINITY
    } else if score >= 1.0 {
        f64::INFINITY
    } else {
        -400.0 * (1.0 / score - 1.0).log10()
    }
}

/// Expected score for a logistic Elo difference.
pub fn elo_to_score(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// Error function, Abramowitz–Stegun 7.1.26 (absolute error below 1.5e-7: plenty for LOS percentages).
pub fn erf(x: f64) -> f64 {
    let sign = if x < 0.0 { -1.0 } else { 1.0 };
    let x = x.abs();
    let t = 1.0 / (1.0 + 0.327_591_1 * x);
    let poly = t
        * (0.254_829_592
            + t * (-0.284_496_736
                + t * (1.421_413_741 + t * (-1.453_152_027 + t * 1.061_405_429))));
    sign * (1.0 - poly * (-x * x).exp())
}

/// Game results from the first engine's point of view, with the game-pair (pentanomial) distribution.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Tally {
    /// Games won by the first engine.
    pub wins: u64,
    /// Games lost by the first engine.
    pub losses: u64,
    /// Drawn games.
    pub draws: u64,
    /// Completed pairs by the pair's total score in half points: index 0 = 0 (LL), 1 = ½ (LD), 2 = 1 (WL or DD),
    /// 3 = 1½ (WD), 4 = 2 (WW).
    pub penta: [u64; 5],
}

/// The statistics a report shows, computed from a [`Tally`].
#[derive(Clone, Debug, PartialEq)]
pub struct Summary {
    /// Number of games.
    pub games: u64,
    /// Mean score per game of the first engine (0..=1).
    pub score: f64,
    /// Logistic Elo difference (first engine minus second).
    pub elo: f64,
    /// Half-width of the 95% confidence interval of `elo` (from the trinomial variance).
    pub elo_error: f64,
    /// Likelihood of superiority of the first engine, 0..=1 (draws ignored).
    pub los: f64,
}

impl Tally {
    /// Number of games counted.
    pub fn games(&self) -> u64 {
        self.wins + self.losses + self.draws
    }

    /// Number of complete game pairs counted.
    pub fn pairs(&self) -> u64 {
        self.penta.iter().sum()
    }

    /// Adds one game: `points2` is the first engine's score in half points (0 loss, 1 draw, 2 win).
    pub fn add_game(&mut self, points2: u8) {
        match points2 {
            0 => self.losses += 1,
            1 => self.draws += 1,
            _ => self.wins += 1,
        }
    }

    /// Adds one completed pair: the sum of both games' half points (0..=4).
    pub fn add_pair(&mut self, points2: u8) {
        self.penta[usize::from(points2.min(4))] += 1;
    }

    /// Score, Elo, its 95% interval and LOS.
    pub fn summary(&self) -> Summary {
        let n = self.games();
        if n == 0 {
            return Summary {
                games: 0,
                score: 0.5,
                elo: 0.0,
                elo_error: f64::INFINITY,
                los: 0.5,
            };
        }
        let nf = n as f64;
        let (w, l, d) = (self.wins as f64, self.losses as f64, self.draws as f64);
        let score = (w + 0.5 * d) / nf;
        let var = (w * (1.0 - score).powi(2) + d * (0.5 - score).powi(2) + l * score.powi(2)) / nf;
        let se = (var / nf).sqrt();
        let lo = score - Z95 * se;
        let hi = score + Z95 * se;
        let elo_error = (score_to_elo(hi) - score_to_elo(lo)) / 2.0;
        let los = if self.wins + self.losses == 0 {
            0.5
        } else {
            0.5 + 0.5 * erf((w - l) / (2.0 * (w + l)).sqrt())
        };
        Summary {
            games: n,
            score,
            elo: score_to_elo(score),
            elo_error,
            los,
        }
    }
}

/// Which counts the SPRT works on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SprtModel {
    /// Game pairs (same opening, colours swapped): 5 outcomes. Robust to opening bias; the default.
    Pentanomial,
    /// Single games: win, draw, loss.
    Trinomial,
}

/// SPRT parameters: H0 "elo = elo0" against H1 "elo = elo1", error rates alpha and beta.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sprt {
    /// Elo under the null hypothesis.
    pub elo0: f64,
    /// Elo under the alternative.
    pub elo1: f64,
    /// False positive rate (accepting H1 when H0 holds).
    pub alpha: f64,
    /// False negative rate (accepting H0 when H1 holds).
    pub beta: f64,
    /// Counts used.
    pub model: SprtModel,
}

/// The SPRT's verdict so far.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SprtState {
    /// Keep playing.
    Continue,
    /// LLR reached the upper bound: the change gains (at least elo1, at the error rates).
    AcceptH1,
    /// LLR reached the lower bound: the change does not gain elo1.
    AcceptH0,
}

impl Sprt {
    /// The (lower, upper) LLR bounds: ln(beta / (1 - alpha)) and ln((1 - beta) / alpha).
    pub fn bounds(&self) -> (f64, f64) {
        (
            (self.beta / (1.0 - self.alpha)).ln(),
            ((1.0 - self.beta) / self.alpha).ln(),
        )
    }

    /// Log-likelihood ratio of H1 against H0 for the tally, with this SPRT's model.
    pub fn llr(&self, t: &Tally) -> f64 {
        let s0 = elo_to_score(self.elo0);
        let s1 = elo_to_score(self.elo1);
        match self.model {
            SprtModel::Trinomial => {
                let counts = [t.losses as f64, t.draws as f64, t.wins as f64];
                gsprt_llr(&counts, &[0.0, 0.5, 1.0], s0, s1)
            }
            SprtModel::Pentanomial => {
                let counts = t.penta.map(|c| c as f64);
                gsprt_llr(&counts, &[0.0, 0.25, 0.5, 0.75, 1.0], s0, s1)
            }
        }
    }

    /// The verdict for an LLR value.
    pub fn state(&self, llr: f64) -> SprtState {
        let (lo, hi) = self.bounds();
        if llr >= hi {
            SprtState::AcceptH1
        } else if llr <= lo {
            SprtState::AcceptH0
        } else {
            SprtState::Continue
        }
    }
}

/// Generalized SPRT log-likelihood ratio for multinomial `counts` over outcome `scores` (ascending, in 0..=1):
/// N · Σ p̂ᵢ ln(p1ᵢ / p0ᵢ), where p_s is the maximum-likelihood distribution with expected score s. Returns 0
/// when there are no counts.
pub fn gsprt_llr(counts: &[f64], scores: &[f64], s0: f64, s1: f64) -> f64 {
    let total: f64 = counts.iter().sum();
    if total <= 0.0 {
        return 0.0;
    }
    let reg: Vec<f64> = counts.iter().map(|&c| c.max(REGULARIZE)).collect();
    let n: f64 = reg.iter().sum();
    let phat: Vec<f64> = reg.iter().map(|&c| c / n).collect();
    let lambda0 = mle_lambda(&phat, scores, s0);
    let lambda1 = mle_lambda(&phat, scores, s1);
    // p_s,i = p̂ᵢ / (1 + λ(xᵢ − s)), so ln(p1ᵢ / p0ᵢ) = ln((1 + λ0(xᵢ − s0)) / (1 + λ1(xᵢ − s1))).
    let sum: f64 = phat
        .iter()
        .zip(scores)
        .map(|(&p, &x)| p * ((1.0 + lambda0 * (x - s0)) / (1.0 + lambda1 * (x - s1))).ln())
        .sum();
    n * sum
}

/// The Lagrange multiplier λ of the constrained maximum-likelihood distribution p̂ᵢ / (1 + λ(xᵢ − s)) with
/// mean s: the root of Σ p̂ᵢ (xᵢ − s) / (1 + λ(xᵢ − s)), which is decreasing in λ, found by bisection inside the
/// interval where every denominator stays positive.
fn mle_lambda(phat: &[f64], scores: &[f64], s: f64) -> f64 {
    let xmin = scores.iter().cloned().fold(f64::INFINITY, f64::min);
    let xmax = scores.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    // 1 + λ(x − s) > 0 for all x  ⇔  −1/(xmax − s) < λ < 1/(s − xmin).
    let mut lo = -1.0 / (xmax - s);
    let mut hi = 1.0 / (s - xmin);
    let f = |lambda: f64| -> f64 {
        phat.iter()
            .zip(scores)
            .map(|(&p, &x)| p * (x - s) / (1.0 + lambda * (x - s)))
            .sum()
    };
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if f(mid) > 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}
