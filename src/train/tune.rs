//! `pbrain-pentad tune`: fits an evaluation table to self-play games by logistic regression.
//!
//! Every position after a game's random opening that the search's horizon would evaluate (`at_horizon`; or
//! every one but those with a five to play, with `--all-positions`) is a sample: its features (`eval::table`: the combination of every empty cell for both sides and the threat mask)
//! and the game's result for the side to move (1, 0.5, 0). The model is `P(win) = sigmoid(logit)` with the
//! logit linear in the table's weights; full-batch Adam minimises the log loss plus an L2 penalty. Games whose
//! index is a multiple of `--holdout` are held out and only measured. Everything runs in one thread in a fixed
//! order, so the same data and arguments give the same table bit for bit.

use std::path::PathBuf;

use anyhow::{bail, Context};

use super::data::{read_games, GameRecord};
use crate::board::{Board, Color, Rule};
use crate::cli::{check_flags, usage_error};
use crate::eval::evaluate;
use crate::eval::table::{
    combo_of_compact, table_name, threat_mask, Weights, COMBO_COUNT, MASK_COUNT,
};
use crate::eval::weights::{hand_evaluate, EVAL_UNITS_PER_LOGIT};
use crate::pattern::Threat;
use crate::search::params::{EVAL_LIMIT, QS_VCF_NODES};
use crate::search::threat::{QuickVcf, ThreatSolver};

/// `pbrain-pentad tune --help`.
pub const TUNE_USAGE: &str = "\
usage: pbrain-pentad tune [options] GAMEFILE...

Fits the evaluation table of the games' rule to self-play game files (from `pbrain-pentad selfplay`) and
prints the train and held-out log loss as it goes, next to the hand-set and the current evaluation's.
  --out FILE       write the table there (e.g. src/eval/tables/freestyle.txt); without it, only measure
  --epochs N       full-batch Adam steps (default 600)
  --lr X           Adam step size, in logit units (default 0.02)
  --l2 X           L2 penalty per weight (default 1e-5)
  --holdout K      every K-th game is held out (default 10)
  --lambda X       weight of the game result in the target; the rest is the self-play search score's
                   (default 0.5)
  --all-positions  fit and measure every position after the opening; by default only those the search's
                   horizon evaluates (no five to block, no win by fours that its quiescence probe finds)
";

/// What `tune` was asked to do.
#[derive(Clone, Debug, PartialEq)]
pub struct TuneConfig {
    /// Game files.
    pub data: Vec<PathBuf>,
    /// Where to write the table.
    pub out: Option<PathBuf>,
    /// Adam steps.
    pub epochs: usize,
    /// Adam step size.
    pub lr: f64,
    /// L2 penalty.
    pub l2: f64,
    /// Every `holdout`-th game is held out.
    pub holdout: usize,
    /// Weight of the game result in the target (the rest is the search score's).
    pub lambda: f64,
    /// Only the positions the search evaluates (`at_horizon`).
    pub horizon: bool,
}

/// Parses `tune`'s arguments.
pub fn parse_tune_args(args: &[String]) -> anyhow::Result<TuneConfig> {
    let mut cfg = TuneConfig {
        data: Vec::new(),
        out: None,
        epochs: 600,
        lr: 0.02,
        l2: 1e-5,
        holdout: 10,
        lambda: 0.5,
        horizon: true,
    };
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = || it.next().with_context(|| format!("{a} needs a value"));
        match a.as_str() {
            "--out" => cfg.out = Some(PathBuf::from(value()?)),
            "--epochs" => cfg.epochs = value()?.parse().context("--epochs: not a number")?,
            "--lr" => cfg.lr = value()?.parse().context("--lr: not a number")?,
            "--l2" => cfg.l2 = value()?.parse().context("--l2: not a number")?,
            "--holdout" => cfg.holdout = value()?.parse().context("--holdout: not a number")?,
            "--lambda" => cfg.lambda = value()?.parse().context("--lambda: not a number")?,
            "--all-positions" => cfg.horizon = false,
            s if s.starts_with("--") => bail!("unknown option {s}"),
            file => cfg.data.push(PathBuf::from(file)),
        }
    }
    if cfg.data.is_empty() {
        bail!("no game file given");
    }
    if cfg.holdout < 2 {
        bail!("--holdout must be at least 2");
    }
    Ok(cfg)
}

/// Parameter layout of one rule's model (views tied but in renju).
#[derive(Clone, Copy, Debug)]
pub struct Layout {
    /// Whether black's and white's cells have tables of their own (renju).
    pub split_views: bool,
}

impl Layout {
    /// First `own` weight.
    const OWN: usize = 0;
    /// First `opp` weight.
    const OPP: usize = 2 * COMBO_COUNT;
    /// First mask weight.
    const MASK: usize = 4 * COMBO_COUNT;
    /// Number of weights.
    pub const LEN: usize = 4 * COMBO_COUNT + 2 * MASK_COUNT;

    /// The layout of `rule`.
    pub fn of(rule: Rule) -> Layout {
        Layout {
            split_views: rule == Rule::Renju,
        }
    }

    /// Table index of colour `c`'s cells.
    fn view(self, c: Color) -> usize {
        if self.split_views {
            c.index()
        } else {
            0
        }
    }

    /// The sparse features of `board` for its side to move: `(weight index, signed count)`.
    pub fn features(self, board: &Board, out: &mut Vec<(u16, i16)>) {
        out.clear();
        let me = board.side_to_move();
        let op = me.opp();
        let mut counts = vec![0i16; Layout::LEN];
        for p in board.empty_cells() {
            let own = combo_of_compact(board.cell_index(p, me));
            let opp = combo_of_compact(board.cell_index(p, op));
            counts[Layout::OWN + self.view(me) * COMBO_COUNT + own] += 1;
            counts[Layout::OPP + self.view(op) * COMBO_COUNT + opp] -= 1;
        }
        counts[Layout::MASK + me.index() * MASK_COUNT + threat_mask(board, me)] += 1;
        out.extend(
            counts
                .iter()
                .enumerate()
                .filter(|(_, &c)| c != 0)
                .map(|(i, &c)| (i as u16, c)),
        );
    }

    /// The fitted weights (logit units) as table weights (eval units).
    pub fn to_weights(self, w: &[f64]) -> Weights {
        let units = |x: f64| (x * EVAL_UNITS_PER_LOGIT).round() as i32;
        let mut out = Weights::zero();
        for v in 0..2 {
            let src = if self.split_views { v } else { 0 };
            for k in 0..COMBO_COUNT {
                out.own[v][k] = units(w[Layout::OWN + src * COMBO_COUNT + k]);
                out.opp[v][k] = units(w[Layout::OPP + src * COMBO_COUNT + k]);
            }
            for m in 0..MASK_COUNT {
                out.mask[v][m] = units(w[Layout::MASK + v * MASK_COUNT + m]);
            }
        }
        out
    }
}

/// The samples of a data set, features packed end to end.
#[derive(Clone, Debug, Default)]
pub struct Samples {
    /// All features; sample `i` owns `feats[start[i]..start[i + 1]]`.
    pub feats: Vec<(u16, i16)>,
    /// Offsets into `feats` (one more than there are samples).
    pub start: Vec<usize>,
    /// The result for the side to move.
    pub label: Vec<f64>,
    /// Other evaluations of the same positions (eval units), to compare with: hand-set, current.
    pub baselines: [Vec<f64>; 2],
    /// The self-play search's score of the position (search units, mover's view).
    pub score: Vec<f64>,
    /// What the fit aims at: the result blended with the search score (`set_targets`); the result until then.
    pub target: Vec<f64>,
}

impl Samples {
    /// An empty set.
    pub fn new() -> Samples {
        Samples {
            start: vec![0],
            ..Samples::default()
        }
    }

    /// Number of samples.
    pub fn len(&self) -> usize {
        self.label.len()
    }

    /// True if there are none.
    pub fn is_empty(&self) -> bool {
        self.label.is_empty()
    }

    /// Adds a sample.
    pub fn push(&mut self, feats: &[(u16, i16)], label: f64, score: f64, baselines: [f64; 2]) {
        self.feats.extend_from_slice(feats);
        self.start.push(self.feats.len());
        self.label.push(label);
        self.target.push(label);
        self.score.push(score);
        self.baselines[0].push(baselines[0]);
        self.baselines[1].push(baselines[1]);
    }

    /// Targets `lambda * result + (1 - lambda) * sigmoid(score / score_scale)`: the search's score carries what
    /// a few thousand nodes of lookahead saw, the result what happened.
    pub fn set_targets(&mut self, lambda: f64, score_scale: f64) {
        for i in 0..self.len() {
            let s = self.score[i].clamp(-f64::from(EVAL_LIMIT), f64::from(EVAL_LIMIT));
            self.target[i] =
                lambda * self.label[i] + (1.0 - lambda) / (1.0 + (-s / score_scale).exp());
        }
    }

    /// The logit of sample `i` under weights `w`.
    #[inline]
    fn logit(&self, w: &[f64], i: usize) -> f64 {
        self.feats[self.start[i]..self.start[i + 1]]
            .iter()
            .map(|&(k, c)| w[k as usize] * f64::from(c))
            .sum()
    }

    /// Mean log loss under weights `w`.
    pub fn loss(&self, w: &[f64]) -> f64 {
        mean_loss((0..self.len()).map(|i| (self.logit(w, i), self.label[i])))
    }
}

/// Log loss of a prediction `sigmoid(z)` against the result `y` (numerically safe).
fn log_loss(z: f64, y: f64) -> f64 {
    // -[y ln s(z) + (1 - y) ln(1 - s(z))] = ln(1 + e^z) - y z
    let softplus = if z > 0.0 {
        z + (-z).exp().ln_1p()
    } else {
        z.exp().ln_1p()
    };
    softplus - y * z
}

/// Mean log loss of `(logit, result)` pairs.
fn mean_loss(it: impl Iterator<Item = (f64, f64)>) -> f64 {
    let (mut sum, mut n) = (0.0, 0usize);
    for (z, y) in it {
        sum += log_loss(z, y);
        n += 1;
    }
    sum / n.max(1) as f64
}

/// Standard deviation of `v`.
fn std_dev(v: &[f64]) -> f64 {
    let n = v.len().max(1) as f64;
    let mean = v.iter().sum::<f64>() / n;
    (v.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / n).sqrt()
}

/// The scale (eval units per logit) that fits an evaluation best, and its mean loss: golden-section search.
pub fn fit_scale(evals: &[f64], labels: &[f64]) -> (f64, f64) {
    let loss = |ln_s: f64| {
        let s = ln_s.exp();
        mean_loss(evals.iter().zip(labels).map(|(&e, &y)| (e / s, y)))
    };
    let (mut a, mut b) = (5f64.ln(), 20_000f64.ln());
    let g = (5f64.sqrt() - 1.0) / 2.0;
    for _ in 0..80 {
        let c = b - g * (b - a);
        let d = a + g * (b - a);
        if loss(c) < loss(d) {
            b = d;
        } else {
            a = c;
        }
    }
    let s = (a + b) / 2.0;
    (s.exp(), loss(s))
}

/// Fits weights to `train` by full-batch Adam from zero, printing progress every `report` steps with the
/// held-out loss.
pub fn fit(
    train: &Samples,
    held: &Samples,
    cfg: &TuneConfig,
    report: usize,
    mut log: impl FnMut(&str),
) -> Vec<f64> {
    let n = Layout::LEN;
    let mut w = vec![0.0; n];
    let (mut m, mut v, mut grad) = (vec![0.0; n], vec![0.0; n], vec![0.0; n]);
    let (b1, b2, eps) = (0.9f64, 0.999f64, 1e-8);
    let inv = 1.0 / train.len().max(1) as f64;
    for step in 1..=cfg.epochs {
        grad.iter_mut().for_each(|g| *g = 0.0);
        for i in 0..train.len() {
            let z = train.logit(&w, i);
            let e = (1.0 / (1.0 + (-z).exp()) - train.target[i]) * inv;
            for &(k, c) in &train.feats[train.start[i]..train.start[i + 1]] {
                grad[k as usize] += e * f64::from(c);
            }
        }
        let (c1, c2) = (1.0 - b1.powi(step as i32), 1.0 - b2.powi(step as i32));
        for k in 0..n {
            let g = grad[k] + 2.0 * cfg.l2 * w[k];
            m[k] = b1 * m[k] + (1.0 - b1) * g;
            v[k] = b2 * v[k] + (1.0 - b2) * g * g;
            w[k] -= cfg.lr * (m[k] / c1) / ((v[k] / c2).sqrt() + eps);
        }
        if step % report == 0 || step == cfg.epochs {
            log(&format!(
                "step {step:5}: train loss {:.5}, held-out loss {:.5}",
                train.loss(&w),
                held.loss(&w)
            ));
        }
    }
    w
}

/// The train and held-out samples of some games.
pub struct DataSet {
    /// The games' rule.
    pub rule: Rule,
    /// Evaluation samples to fit.
    pub train: Samples,
    /// Evaluation samples to measure.
    pub held: Samples,
}

/// Whether the search's horizon would evaluate `board` (see `alphabeta::quiesce`): the opponent has no five to
/// block (the search plays the block instead) and the quiescence VCF probe finds no win for the side to move.
fn at_horizon(board: &Board, solver: &mut ThreatSolver) -> bool {
    let me = board.side_to_move();
    if board.threat_count(me.opp(), Threat::Five) > 0 {
        return false;
    }
    let mut b = board.clone();
    !matches!(solver.quick_vcf(&mut b, QS_VCF_NODES), QuickVcf::Win { .. })
}

/// Turns games into train and held-out samples (all games must share one table).
pub fn samples(games: &[GameRecord], holdout: usize, horizon: bool) -> anyhow::Result<DataSet> {
    let mut solver = ThreatSolver::new();
    let Some(first) = games.first() else {
        bail!("no games");
    };
    let rule = first.rule;
    let layout = Layout::of(rule);
    let (mut train, mut held) = (Samples::new(), Samples::new());
    let mut feats = Vec::new();
    for (gi, g) in games.iter().enumerate() {
        if table_name(g.rule) != table_name(rule) {
            bail!(
                "game {} is {:?}, game 1 is {rule:?}: one table at a time",
                gi + 1,
                g.rule
            );
        }
        let set = if gi % holdout == 0 {
            &mut held
        } else {
            &mut train
        };
        g.replay(|board, i| {
            let me = board.side_to_move();
            if i < g.opening as usize || board.threat_count(me, Threat::Five) > 0 {
                return;
            }
            if horizon && !at_horizon(board, &mut solver) {
                return;
            }
            layout.features(board, &mut feats);
            let base = [hand_evaluate(board), evaluate(board)].map(f64::from);
            let score = f64::from(g.moves[i].2);
            set.push(&feats, g.outcome.score_for(me), score, base);
        })
        .with_context(|| format!("game {}", gi + 1))?;
    }
    Ok(DataSet { rule, train, held })
}

/// `pbrain-pentad tune ARGS`.
pub fn run_tune(args: &[String]) -> anyhow::Result<()> {
    check_flags(args, TUNE_USAGE)?;
    let cfg = parse_tune_args(args).map_err(|e| usage_error(format!("{e:#}"), TUNE_USAGE))?;
    let mut games = Vec::new();
    for path in &cfg.data {
        games.extend(read_games(path)?);
    }
    let DataSet {
        rule,
        mut train,
        held,
    } = samples(&games, cfg.holdout, cfg.horizon)?;
    println!(
        "tune: {} games, {} train and {} held-out positions, rule {rule:?} (table `{}`)",
        games.len(),
        train.len(),
        held.len(),
        table_name(rule)
    );
    if train.is_empty() || held.is_empty() {
        bail!("too few positions to fit and measure");
    }
    for (name, b) in ["hand-set", "current"].iter().zip(0..2) {
        let (scale, loss) = fit_scale(&train.baselines[b], &train.label);
        let held_loss = mean_loss(
            held.baselines[b]
                .iter()
                .zip(&held.label)
                .map(|(&e, &y)| (e / scale, y)),
        );
        println!(
            "{name} evaluation: fitted scale {scale:.1} eval units per logit, train loss {loss:.5}, \
             held-out loss {held_loss:.5}"
        );
    }
    let (score_scale, score_loss) = fit_scale(&train.score, &train.label);
    println!(
        "self-play search scores: fitted scale {score_scale:.1} per logit, train loss {score_loss:.5}; \
         fitting to {} x result + {} x sigmoid(score / scale)",
        cfg.lambda,
        1.0 - cfg.lambda
    );
    train.set_targets(cfg.lambda, score_scale);
    let layout = Layout::of(rule);
    let w = fit(&train, &held, &cfg, 50, |s| println!("{s}"));
    let weights = layout.to_weights(&w);
    let logits: Vec<f64> = (0..held.len()).map(|i| held.logit(&w, i)).collect();
    println!(
        "learned evaluation: held-out loss {:.5} (scale {EVAL_UNITS_PER_LOGIT} eval units per logit)",
        mean_loss(logits.iter().zip(&held.label).map(|(&z, &y)| (z, y)))
    );
    println!(
        "spread (standard deviation) on the held-out positions: hand-set {:.1} eval units, learned {:.3} logits",
        std_dev(&held.baselines[0]),
        std_dev(&logits)
    );
    if let Some(out) = &cfg.out {
        let comment = format!(
            "Fitted by `pbrain-pentad tune` to {} games ({} train, {} held-out positions{}): epochs {}, lr {}, \
             l2 {}, holdout {}, lambda {}.",
            games.len(),
            train.len(),
            held.len(),
            if cfg.horizon { " at the horizon" } else { "" },
            cfg.epochs,
            cfg.lr,
            cfg.l2,
            cfg.holdout,
            cfg.lambda
        );
        std::fs::write(out, weights.to_text(table_name(rule), &comment))
            .with_context(|| format!("writing {}", out.display()))?;
        println!("wrote {}", out.display());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::manager::players::Rng;

    #[test]
    fn recovers_known_weights() {
        // Synthetic samples over 40 weights with results drawn from known weights: the fit finds them again.
        let truth: Vec<f64> = (0..40).map(|k| ((k * 7 % 13) as f64 - 6.0) / 4.0).collect();
        let mut rng = Rng::new(5);
        let (mut train, mut held) = (Samples::new(), Samples::new());
        for i in 0..30_000 {
            let feats: Vec<(u16, i16)> = (0..4)
                .map(|_| (rng.below(40) as u16, rng.below(3) as i16 - 1))
                .filter(|f| f.1 != 0)
                .collect();
            let z: f64 = feats
                .iter()
                .map(|&(k, c)| truth[k as usize] * f64::from(c))
                .sum();
            let p = 1.0 / (1.0 + (-z).exp());
            let y = if (rng.below(1 << 20) as f64) < p * f64::from(1 << 20) {
                1.0
            } else {
                0.0
            };
            let set = if i % 10 == 0 { &mut held } else { &mut train };
            set.push(&feats, y, 0.0, [0.0, 0.0]);
        }
        let cfg = TuneConfig {
            data: Vec::new(),
            out: None,
            epochs: 400,
            lr: 0.05,
            l2: 0.0,
            holdout: 10,
            lambda: 1.0,
            horizon: false,
        };
        let w = fit(&train, &held, &cfg, 1000, |_| {});
        for k in 0..40 {
            assert!(
                (w[k] - truth[k]).abs() < 0.15,
                "weight {k}: {} vs {}",
                w[k],
                truth[k]
            );
        }
        assert!(
            w[40..].iter().all(|&x| x == 0.0),
            "unused weights stay zero"
        );
        let best = held.loss(&truth);
        assert!(held.loss(&w) < best + 0.005, "{} vs {best}", held.loss(&w));
        // The fit is deterministic.
        assert_eq!(fit(&train, &held, &cfg, 1000, |_| {}), w);
    }

    #[test]
    fn scale_fit_finds_the_generating_scale() {
        let mut rng = Rng::new(3);
        let (mut e, mut y) = (Vec::new(), Vec::new());
        for _ in 0..50_000 {
            let eval = rng.below(2001) as f64 - 1000.0;
            let p = 1.0 / (1.0 + (-eval / 250.0).exp());
            e.push(eval);
            y.push(p);
        }
        let (s, _) = fit_scale(&e, &y);
        assert!((s - 250.0).abs() < 1.0, "{s}");
    }

    #[test]
    fn features_add_up_to_the_evaluation() {
        // The model's logit under a table's weights is that table's evaluation (but for rounding): the tuner
        // and the board read the same features.
        let mut board = Board::new(15, 15, Rule::Renju).expect("board");
        for (x, y) in [(7, 7), (8, 8), (8, 7), (6, 7), (9, 9), (7, 8)] {
            board.try_play(x, y).expect("legal");
        }
        let layout = Layout::of(Rule::Renju);
        let table = board.eval_table();
        let mut w = vec![0.0; Layout::LEN];
        for v in 0..2 {
            for ci in 0..crate::eval::table::CELL_INDEX {
                if ci & 0x8888 == 0 {
                    let k = combo_of_compact(ci);
                    let e = table.cell[v][ci];
                    let own = e as i32;
                    w[Layout::OWN + v * COMBO_COUNT + k] = f64::from(own);
                    w[Layout::OPP + v * COMBO_COUNT + k] = ((e - i64::from(own)) >> 32) as f64;
                }
            }
            for m in 0..MASK_COUNT {
                w[Layout::MASK + v * MASK_COUNT + m] = f64::from(table.mask[v][m]);
            }
        }
        let mut feats = Vec::new();
        layout.features(&board, &mut feats);
        let z: f64 = feats
            .iter()
            .map(|&(k, c)| w[k as usize] * f64::from(c))
            .sum();
        assert_eq!(z, f64::from(evaluate(&board)));
    }
}
