//! Every number the search uses, in one place (style.md habit 6).
//!
//! Naming: `*_DEPTH`/`*_PLY` are plies, `*_NODES` node counts, `*_BYTES` memory sizes, `*_BONUS`/`*_SCORE`
//! move-ordering points, everything else is said in its comment.

use crate::board::Rule;

/// Score of a won position before subtracting the distance: a win in `n` plies scores `WIN - n`.
pub const WIN: i32 = 30_000;
/// Deepest ply the search can reach (recursion bound and array sizes); mate scores need `WIN_BOUND` > any eval.
pub const MAX_PLY: usize = 128;
/// Smallest score that is a proven win (a win in `MAX_PLY` plies); the aspiration windows of the root never
/// ask for more than this, since the distance of a win does not change the move.
pub const WIN_BOUND: i32 = WIN - MAX_PLY as i32;
/// Largest static evaluation magnitude, kept far below the mate range so an eval is never taken for a win.
pub const EVAL_LIMIT: i32 = 20_000;
/// Score bound used as infinity (strictly above every reachable score).
pub const INF: i32 = WIN + 1;
/// Deepest iteration when no depth limit is given.
pub const MAX_DEPTH: i32 = 60;

/// Nodes between two polls of the stop flag and the hard deadline (~1024 as the issue asks).
pub const POLL_NODES: u64 = 1024;

/// Default transposition-table size when the engine never calls `set_hash_bytes` (128 MiB, issue 3).
pub const DEFAULT_HASH_BYTES: usize = 128 << 20;
/// Smallest table we ever build, so a tiny `max_memory` still gives a working (if small) table.
pub const MIN_HASH_BYTES: usize = 1 << 16;

/// Node budget of the VCF probe the tuner uses to keep only quiet positions (`train::tune`); it was the
/// horizon's probe when the committed tables were fitted, so refits keep the same filter.
pub const QS_VCF_NODES: u64 = 100;
/// Threat quiescence: plies of own fours and forced blocks searched past the horizon (the side to move at the
/// horizon attacks with fours only; each four costs two plies).
pub const QS_MAX_PLY: i32 = 12;
/// Threat quiescence: after the first four, only fours on a line through the previous four and at most this many
/// cells from it are tried (a VCF continues where its last four was).
pub const QS_NEAR_CELLS: usize = 4;
/// Node budget of the VCF search at the root, before iterative deepening.
pub const ROOT_VCF_NODES: u64 = 200_000;
/// Node budget of the VCT search at the root (threes and fours), before iterative deepening.
pub const ROOT_VCT_NODES: u64 = 20_000;
/// With a deadline, the root threat searches get at most this many nodes per millisecond left: the VCT runs at
/// about 450 nodes/ms here, so this is ~10% of the time left (250/ms ate a 100 ms turn and lost badly).
pub const ROOT_THREAT_NODES_PER_MS: u64 = 40;

/// First iteration that uses an aspiration window (shallower ones are cheap and scores jump around).
pub const ASPIRATION_MIN_DEPTH: i32 = 5;

/// Root moves from this index on (0 = the previous best) get the PV-node reduction too.
pub const ROOT_LMR_MIN_MOVES: usize = 2;
/// Late-move reductions need at least this much remaining depth.
pub const LMR_MIN_DEPTH: i32 = 2;

/// Facing an open three, a move that takes none of the opponent's four points (one of our fours played elsewhere,
/// which mostly delays the defence) is "far" from a side's last stone beyond this Chebyshev distance (Rapfi's
/// "useless defence" rule; the cells of any five-cell window through a stone lie within 4 of it). Every rule (renju
/// for white only): with the two below, +13.9 +- 11.7 Elo at 100 ms (1376-1256-363, 2995 games, SPRT H1, session
/// 41), on 20x20 +38.7 +- 23.8 (461-369-0, 830 games, H1); in standard +35.0 +- 23.1 (373-296-97, 766 games, H1,
/// session 43), in caro +24.3 +- 17.6 (548-462-224, 1234 games, H1, session 43; rule 9 not measured apart). In
/// renju for both colours with a distance of 5: +3.4 +- 18.2 (646-633-61, 1340 games, stopped); for white to move
/// only (black defends with forbidden points in the way): +17.8 +- 17.2 (737-661-86, 1484 games, H1, session 43).
pub const DISTANT_DEFENCE_CELLS: usize = 4;
/// Such a move far from the opponent's last stone is reduced this many plies more (Rapfi: 1.93).
pub const LMR_DISTANT_FROM_OPP: i32 = 2;
/// Such a move far from our own last stone is reduced this many plies more (Rapfi: 0.96); far from both, it is
/// not searched below `TRIVIAL_PRUNE_DEPTH` once a move that does not lose outright was found.
pub const LMR_DISTANT_FROM_OWN: i32 = 1;

/// Move-count pruning: growth of the count with depth.
pub const MCP_POWER: f32 = 1.32;
/// Below this remaining depth, moves with no pattern at all (not even an open two) for either side are not
/// searched once a move that does not lose outright was found.
pub const TRIVIAL_PRUNE_DEPTH: i32 = 4;

/// The sizes of the search's reductions and prunings that differ by rule (`Pruning::for_rule`): one set was tuned
/// by SPSA in freestyle, and renju, with black's forbidden points, did not take it.
#[derive(Clone, Copy, Debug)]
pub struct Pruning {
    /// Half-width of the first aspiration window, in eval units: about 0.07 logit (`EVAL_UNITS_PER_LOGIT`), near
    /// Rapfi's size; 60 (0.02 logit) re-searched too often and lost 40 Elo to it, 300 lost 24 (session 22).
    pub aspiration_delta: i32,
    /// Late-move reductions: a move's reduction is `lmr_scale * ln(depth) * ln(move number)` plies before the
    /// adjustments below (the log-log shape of Stockfish and Rapfi: late moves at deep nodes are almost never best).
    pub lmr_scale: f32,
    /// Reduction adjustment (plies): less at PV nodes, where the exact score matters.
    pub lmr_pv: f32,
    /// Reduction adjustment (plies): more when the static eval is not better than two plies ago.
    pub lmr_not_improving: f32,
    /// Reduction adjustment (plies): more at expected cut nodes (zero window, not the first move's line).
    pub lmr_cut_node: f32,
    /// Reduction adjustment (plies): less for a move that makes a four, an open three (or two open twos) or blocks
    /// the opponent's three or four point. Fours get reduced like any late move (exempting them cost 67 Elo).
    pub lmr_important: f32,
    /// History counters worth one ply less (or more, when negative) reduction.
    pub lmr_history_per_ply: f32,
    /// Move-count pruning: once a move that does not lose outright was found, quiet moves past
    /// `mcp_base + mcp_scale * depth^MCP_POWER` (times `mcp_not_improving` when not improving) are not searched.
    pub mcp_base: f32,
    /// Move-count pruning: moves per unit of `depth^MCP_POWER`.
    pub mcp_scale: f32,
    /// Move-count pruning: share of the count kept when the static eval is not improving.
    pub mcp_not_improving: f32,
    /// Futility pruning, at any depth: a quiet non-PV node whose static eval beats beta by this many eval units
    /// per ply of remaining depth beyond the first (one ply fewer when improving) is cut without a search. About
    /// 0.31 logit per ply (`EVAL_UNITS_PER_LOGIT`), Rapfi's size; 150 per ply up to depth 3 lost 27 Elo to it. A
    /// fifth less at cut nodes with no table entry (Rapfi's shape) did not gain: +2.7 +- 10.6 over 3248 games
    /// (session 21).
    pub futility_margin: i32,
    /// Fail-high reduction: eval units per ply of remaining depth by which a cut node's static eval must beat beta
    /// for its non-four moves to be searched a ply shallower.
    pub fail_high_margin: i32,
    /// Razoring: eval units per ply of remaining depth (see `RAZOR_DEPTH`).
    pub razor_margin: i32,
}

/// Freestyle, standard and caro: session 45's SPSA values (13 parameters at once, 100 ms games, freestyle 15x15).
/// Against the hand-set ones (`PRUNING_RENJU`) at 100 ms: freestyle 15x15 +9.5 +- 7.3 Elo (3461-3252-947, 7660
/// games over four seeds, SPRT [0, 10] H1, sessions 45 to 47), 20x20 +16.2 +- 27.9 (314-286-0, 600), standard
/// +7.1 (469-447-164, 1080, two seeds), caro +27.9 +- 35.7 (134-110-56, 300).
pub const PRUNING: Pruning = Pruning {
    aspiration_delta: 220,
    lmr_scale: 0.78,
    lmr_pv: 0.85,
    lmr_not_improving: 1.1,
    lmr_cut_node: 0.9,
    lmr_important: 0.66,
    lmr_history_per_ply: 8700.0,
    mcp_base: 4.5,
    mcp_scale: 2.5,
    mcp_not_improving: 0.69,
    futility_margin: 780,
    fail_high_margin: 135,
    razor_margin: 355,
};

/// Renju keeps the hand-set values: with `PRUNING` it lost 19.4 +- 25.1 Elo at 100 ms (312-351-37, 700 games,
/// LOS 6.5 %, session 46); a renju SPSA's own values were even with these (+1.8 +- 14.3, 1013-1002-125, 2140
/// games, session 48).
pub const PRUNING_RENJU: Pruning = Pruning {
    aspiration_delta: 200,
    lmr_scale: 0.75,
    lmr_pv: 1.0,
    lmr_not_improving: 1.0,
    lmr_cut_node: 1.0,
    lmr_important: 1.0,
    lmr_history_per_ply: 8192.0,
    mcp_base: 4.0,
    mcp_scale: 2.0,
    mcp_not_improving: 0.67,
    futility_margin: 880,
    fail_high_margin: 150,
    razor_margin: 300,
};

impl Pruning {
    /// The set the search uses under `rule`.
    pub fn for_rule(rule: Rule) -> Pruning {
        if rule == Rule::Renju {
            PRUNING_RENJU
        } else {
            PRUNING
        }
    }
}

/// Razoring: at this remaining depth or less, a non-PV node whose static eval is below alpha by the margin
/// below returns the horizon value at once.
pub const RAZOR_DEPTH: i32 = 2;

/// Null move: off. In self-play it gained in freestyle 15x15 (+9.4 Elo over 11000 games at 60 ms, sessions 18 to
/// 20; it lost in renju and did not gain in standard), but against Rapfi it lost: 500 games per build (session
/// 23, freestyle 15x15, on the same openings), the build with it scored 25.0 % and the build without it 32.5 %
/// (z = -3.2). The code stays behind this switch, with the conditions below, for variants to come.
pub const NULL_MOVE: bool = false;
/// Null move (when on, freestyle only): a non-PV node with at least this much remaining depth, whose static
/// eval is at least beta, first passes. Rapfi passes from depth 10 with a large margin, which hardly ever fires
/// here: futility and the fail-high reduction already take those nodes. From depth 4 it did not gain (+4.5 Elo
/// over 5317 games at 60 ms, session 20).
pub const NULL_MOVE_MIN_DEPTH: i32 = 6;
/// Null move: only on boards of at most this many cells (15x15). On freestyle 20x20 it lost at 60 ms
/// (577-623-0, -13.3 +- 19.7, 1200 games, session 19) where it had gained on 15x15.
pub const NULL_MOVE_MAX_CELLS: usize = 225;
/// Null move: the pass is searched `NULL_MOVE_BASE_R + depth / NULL_MOVE_DEPTH_PER_R` plies shallower than a move.
/// Up to two plies more as the eval rises above beta did not gain (0.0 +- 12.7 over 2033 games, session 21).
pub const NULL_MOVE_BASE_R: i32 = 3;
/// Null move: remaining plies per extra ply of reduction.
pub const NULL_MOVE_DEPTH_PER_R: i32 = 4;

/// Move ordering: the hash move comes first.
pub const ORDER_HASH_MOVE: i32 = 1 << 30;
/// Move ordering: the first killer move.
pub const ORDER_KILLER1: i32 = 1 << 24;
/// Move ordering: the second killer move.
pub const ORDER_KILLER2: i32 = (1 << 24) - 1;
/// History bonus scale: depth*depth is added for a cutoff; values above this are halved for all entries.
pub const HISTORY_MAX: i32 = 1 << 14;
/// History counters are divided by this before they are added to a move's ordering score (rules other than
/// freestyle).
pub const HISTORY_DIVISOR: i32 = 16;
/// The same in freestyle: at 16 the history hardly moved a quiet move past one with a better pattern score; 4 made
/// it count (+26 Elo at 60 ms, session 16; undecided at 200 ms). Renju lost 31 Elo with 4, so the other rules keep
/// 16; neither 2 in freestyle nor 8 or 32 in renju did better (session 17).
pub const HISTORY_DIVISOR_FREESTYLE: i32 = 4;

/// `pbrain-pentad bench`: default fixed depth.
pub const BENCH_DEPTH: i32 = 6;
/// `pbrain-pentad bench`: table size per position (fresh table each time).
pub const BENCH_HASH_BYTES: usize = 16 << 20;

/// `pbrain-pentad bench wins`: default turn per position (the "1 s per move").
pub const WINS_TURN_MS: i64 = 1000;
/// `pbrain-pentad bench wins`: table size (what a 128 MB `max_memory` gives a game: half of it).
pub const WINS_HASH_BYTES: usize = 64 << 20;
/// `pbrain-pentad bench wins`: positions whose reference needed at least this many milliseconds are also
/// summed up on their own (the hard part of a set built from real games, where most wins are quick).
pub const WINS_HARD_MS: f64 = 100.0;

/// Threat solver: slots in the proof table of a `ThreatSolver::new` (2^16 slots × 16 bytes = 1 MiB).
pub const THREAT_TABLE_BITS: u32 = 16;
/// Threat solver: slots in the proof table built by the one-shot `threat::vcf` and `threat::vct` (4 MiB).
pub const ROOT_TABLE_BITS: u32 = 18;
/// Threat solver: deepest VCT iteration, in attacker threat moves outside the VCF tails (each VCT node also tries
/// a full VCF).
pub const MAX_VCT_DEPTH: u8 = 10;
/// Threat solver: initial capacity of the move stack; it only grows to a high-water mark, never per node.
pub const THREAT_STACK_CAPACITY: usize = 1 << 14;

/// `selfplay`: an opening whose search score (side to move) is beyond this many eval units is redrawn, so the
/// games teach positions that are still open.
pub const SELFPLAY_BALANCE_LIMIT: i32 = 300;
/// `selfplay`: openings drawn at most per game before the last one is kept anyway.
pub const SELFPLAY_OPENING_TRIES: usize = 10;
/// `selfplay`: the first random stone lies within this many cells of the centre.
pub const SELFPLAY_OPENING_RADIUS: i64 = 3;
/// `selfplay`: hash table per game thread (the node budgets are small).
pub const SELFPLAY_HASH_BYTES: usize = 16 << 20;
