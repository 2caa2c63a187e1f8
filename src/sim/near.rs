//! `world.creatures_near` answered from a grid: creatures by 4 m cells of their bodies'
//! places, built once a tick on the first query (scripts run between ticks: nothing moves
//! while they ask), then each query visits the cells its disc covers — ring by ring out from
//! its own, and with a `limit` only until no farther ring can hold a nearer one — keeps
//! those that pass its filter (type, team, animated, one left out) and returns the nearest
//! first, at most `limit` of them: a battle's brains asking for their nearest foe cost the
//! cells around them each, not every creature each.

use rustc_hash::FxHashMap;

use glam::Vec3;

use super::world::{CreatureId, TypeId, World};

/// Grid cells are this wide (m).
const CELL: f32 = 4.0;

/// What a query keeps.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct NearFilter {
    /// Only creatures of this type.
    pub type_id: Option<TypeId>,
    /// Only creatures of this team.
    pub team: Option<u32>,
    /// No creature of this team.
    pub not_team: Option<u32>,
    /// Only animated creatures (none in physics).
    pub animated: bool,
    /// Leave this one out (the asker).
    pub exclude: Option<CreatureId>,
    /// At most this many, the nearest.
    pub limit: Option<usize>,
}

/// What a query reads of one creature: its body's centre and what a filter looks at —
/// copied into the grid, so a query walks its cells' entries and never the creatures
/// themselves (a battle's brain asking for its nearest foe passes over dozens of allies and
/// fallen foes: reading each one's creature was most of the query).
#[derive(Clone, Copy, Debug)]
struct Entry {
    at: Vec3,
    id: CreatureId,
    type_id: TypeId,
    team: Option<u32>,
    animated: bool,
}

/// One cell's creatures, in runs of one team and one state (on its feet or not), each run in
/// creature order: a filter by team or on its feet takes or skips a whole run at once (a
/// battle's brain looking for the nearest foe on its feet passes over its own army's cells,
/// and the fallen, without reading each one). The order creatures are found in never shows:
/// the answer is sorted by distance, then id.
#[derive(Default)]
struct Cell {
    entries: Vec<Entry>,
    /// Each run's team and state, and where it ends in `entries`.
    runs: Vec<(Option<u32>, bool, u32)>,
}

impl Cell {
    /// Sorts the cell's entries into its runs (a stable sort: each run in creature order).
    fn group(&mut self) {
        self.entries.sort_by_key(|e| (e.team, e.animated));
        self.runs.clear();
        for (i, e) in self.entries.iter().enumerate() {
            match self.runs.last_mut() {
                Some((t, a, end)) if *t == e.team && *a == e.animated => *end = i as u32 + 1,
                _ => self.runs.push((e.team, e.animated, i as u32 + 1)),
            }
        }
    }
}

/// Where a cell's creatures are: an array over the box the crowd fills (a ring of cells
/// looked at is a few index sums, no hashing), or a map when that box would be far larger
/// than the crowd (creatures scattered over a huge level).
enum CellIndex {
    /// `at[(x - lo.0) * dims.1 + (z - lo.1)]`: the cell's place in `cells`, or `u32::MAX`.
    Dense {
        lo: (i32, i32),
        dims: (i32, i32),
        at: Vec<u32>,
    },
    Sparse(FxHashMap<(i32, i32), u32>),
}

impl Default for CellIndex {
    fn default() -> Self {
        CellIndex::Sparse(FxHashMap::default())
    }
}

impl CellIndex {
    /// The index of the occupied cells numbered in `map` (each cell's place in `cells`):
    /// that map itself, or an array over their box when the box is not far larger than
    /// the crowd.
    fn new(map: FxHashMap<(i32, i32), u32>) -> CellIndex {
        let (mut lo, mut hi) = ((i32::MAX, i32::MAX), (i32::MIN, i32::MIN));
        for &(x, z) in map.keys() {
            lo = (lo.0.min(x), lo.1.min(z));
            hi = (hi.0.max(x), hi.1.max(z));
        }
        let dims = (
            i64::from(hi.0) - i64::from(lo.0) + 1,
            i64::from(hi.1) - i64::from(lo.1) + 1,
        );
        if map.is_empty() || dims.0 * dims.1 > 4096 + 16 * map.len() as i64 {
            return CellIndex::Sparse(map);
        }
        let dims = (dims.0 as i32, dims.1 as i32);
        let mut at = vec![u32::MAX; (dims.0 * dims.1) as usize];
        for (&(x, z), &i) in &map {
            at[((x - lo.0) * dims.1 + (z - lo.1)) as usize] = i;
        }
        CellIndex::Dense { lo, dims, at }
    }

    /// The square of cells `lo..=hi` cut to the box the crowd fills, when the index knows
    /// it: no creature is outside it, so a query never looks there.
    fn clamp(&self, lo: (i32, i32), hi: (i32, i32)) -> ((i32, i32), (i32, i32)) {
        match self {
            CellIndex::Dense { lo: b, dims, .. } => (
                (lo.0.max(b.0), lo.1.max(b.1)),
                (hi.0.min(b.0 + dims.0 - 1), hi.1.min(b.1 + dims.1 - 1)),
            ),
            CellIndex::Sparse(_) => (lo, hi),
        }
    }

    /// The place in `cells` of cell `(x, z)`, if it holds a creature.
    fn get(&self, x: i32, z: i32) -> Option<usize> {
        let i = match self {
            CellIndex::Dense { lo, dims, at } => {
                let (dx, dz) = (x.wrapping_sub(lo.0), z.wrapping_sub(lo.1));
                if !(0..dims.0).contains(&dx) || !(0..dims.1).contains(&dz) {
                    return None;
                }
                at[(dx * dims.1 + dz) as usize]
            }
            CellIndex::Sparse(map) => *map.get(&(x, z))?,
        };
        (i != u32::MAX).then_some(i as usize)
    }
}

/// The grid of one tick.
#[derive(Default)]
pub(super) struct NearGrid {
    /// What it was built for: (frame, removals, creatures).
    key: (u64, u64, usize),
    /// The cells that hold a creature.
    cells: Vec<Cell>,
    /// Where each cell is in `cells`.
    index: CellIndex,
    /// A query's found list, kept for its room (each query clears it first).
    found: Vec<Found>,
}

fn cell_of(p: Vec3) -> (i32, i32) {
    ((p.x / CELL).floor() as i32, (p.z / CELL).floor() as i32)
}

/// A found creature: its distance, id and type.
type Found = (f32, CreatureId, TypeId);

/// Nearest first, ties by id.
fn order(a: &Found, b: &Found) -> std::cmp::Ordering {
    a.0.total_cmp(&b.0).then(a.1.cmp(&b.1))
}

/// One `creatures_near` query over a grid.
struct Query<'a> {
    grid: &'a NearGrid,
    p: Vec3,
    filter: &'a NearFilter,
    /// The cells the disc's square covers, lowest and highest.
    lo: (i32, i32),
    hi: (i32, i32),
    /// How far a creature may be and still be kept: the radius, or with a limit `k` the
    /// `k`-th nearest found so far (nothing farther can be among the `k`).
    bound: std::cell::Cell<f32>,
}

impl Query<'_> {
    /// Whether the filter keeps creatures of `team` in that state (`animated`).
    fn keeps_run(&self, team: Option<u32>, animated: bool) -> bool {
        let f = self.filter;
        f.team.is_none_or(|t| team == Some(t))
            && f.not_team.is_none_or(|t| team != Some(t))
            && (!f.animated || animated)
    }

    /// Whether the filter keeps `e` (of a run it keeps).
    fn keeps_in_run(&self, e: &Entry) -> bool {
        let f = self.filter;
        f.type_id.is_none_or(|t| e.type_id == t) && f.exclude != Some(e.id)
    }

    fn visit(&self, e: &Entry, found: &mut Vec<Found>) {
        if self.keeps_in_run(e) {
            let d = e.at.distance(self.p);
            if d <= self.bound.get() {
                found.push((d, e.id, e.type_id));
            }
        }
    }

    fn cell(&self, x: i32, z: i32, found: &mut Vec<Found>) {
        if let Some(i) = self.grid.index.get(x, z) {
            self.runs(&self.grid.cells[i], found);
        }
    }

    /// The creatures of `cell` the filter keeps, run by run.
    fn runs(&self, cell: &Cell, found: &mut Vec<Found>) {
        let mut from = 0;
        for &(team, animated, end) in &cell.runs {
            let end = end as usize;
            if self.keeps_run(team, animated) {
                cell.entries[from..end]
                    .iter()
                    .for_each(|e| self.visit(e, found));
            }
            from = end;
        }
    }

    /// With a limit `k`: ring by ring out from the asker's cell, done once the limit's
    /// farthest is nearer than anything the next ring can hold (a cell r + 1 rings out is
    /// beyond the edge of the square looked at) — a battle's brains asking for their
    /// nearest foe look at their own cell or the cells around it. False (the search is for
    /// [`Query::plain`]) past twice as many cells as the crowd fills (and a few): a scan of
    /// the crowd's cells costs less by then.
    fn rings(&self, k: usize, found: &mut Vec<Found>) -> bool {
        let (lo, hi, c) = (self.lo, self.hi, cell_of(self.p));
        let rings = (c.0 - lo.0).max(hi.0 - c.0).max(c.1 - lo.1).max(hi.1 - c.1);
        let mut looked = 0usize;
        for r in 0..=rings {
            for x in (c.0 - r).max(lo.0)..=(c.0 + r).min(hi.0) {
                if (x - c.0).abs() == r {
                    // A column on the ring's edge: all of it.
                    for z in (c.1 - r).max(lo.1)..=(c.1 + r).min(hi.1) {
                        self.cell(x, z, found);
                        looked += 1;
                    }
                } else {
                    // One inside it: its two ends.
                    for z in [c.1 - r, c.1 + r] {
                        if (lo.1..=hi.1).contains(&z) {
                            self.cell(x, z, found);
                            looked += 1;
                        }
                    }
                }
            }
            if k <= found.len() {
                // Only the k nearest so far can be among the k nearest: the rest go, and
                // the next rings keep only what is nearer than the k-th.
                found.select_nth_unstable_by(k - 1, order);
                found.truncate(k);
                self.bound.set(found[k - 1].0);
                if found[k - 1].0 <= edge(self.p, c, r) {
                    return true;
                }
            }
            if r == rings {
                return true;
            } else if looked >= 2 * self.grid.cells.len() + 32 {
                return false;
            }
        }
        true
    }

    /// Every cell of the disc's square, or every creature when the square holds more
    /// cells than the crowd fills.
    fn plain(&self, found: &mut Vec<Found>) {
        let (lo, hi) = (self.lo, self.hi);
        let span = (hi.0 as i64 - lo.0 as i64 + 1) * (hi.1 as i64 - lo.1 as i64 + 1);
        if span > self.grid.cells.len() as i64 {
            // A disc wider than the crowd: every cell the crowd fills.
            self.grid.cells.iter().for_each(|c| self.runs(c, found));
        } else {
            for x in lo.0..=hi.0 {
                for z in lo.1..=hi.1 {
                    self.cell(x, z, found);
                }
            }
        }
    }
}

/// How far `p` is from the edge of the square of rings looked at (the asker's cell `c`
/// grown by `r` cells each way): nothing unseen is nearer.
fn edge(p: Vec3, c: (i32, i32), r: i32) -> f32 {
    let (x0, z0) = ((c.0 - r) as f32 * CELL, (c.1 - r) as f32 * CELL);
    let (x1, z1) = ((c.0 + r + 1) as f32 * CELL, (c.1 + r + 1) as f32 * CELL);
    (p.x - x0).min(x1 - p.x).min(p.z - z0).min(z1 - p.z)
}

impl World {
    /// The creatures whose bodies are within `radius` of `p` and pass `filter`, nearest
    /// first (ties by id), at most `filter.limit`, each with its type.
    pub fn creatures_near(
        &mut self,
        p: Vec3,
        radius: f32,
        filter: &NearFilter,
    ) -> Vec<(CreatureId, TypeId)> {
        self.refresh_near_grid();
        let (lo, hi) = self.near.index.clamp(
            cell_of(p - Vec3::splat(radius)),
            cell_of(p + Vec3::splat(radius)),
        );
        // The found list is the grid's, kept from query to query (a battle asks a thousand
        // times a tick).
        let mut found = std::mem::take(&mut self.near.found);
        found.clear();
        let q = Query {
            grid: &self.near,
            p,
            filter,
            lo,
            hi,
            bound: std::cell::Cell::new(radius),
        };
        let done = match filter.limit.filter(|k| *k > 0) {
            Some(k) => q.rings(k, &mut found),
            None => false,
        };
        if !done {
            found.clear();
            q.bound.set(radius);
            q.plain(&mut found);
        }
        match filter.limit {
            Some(k) if k < found.len() => {
                if k > 0 {
                    found.select_nth_unstable_by(k - 1, order);
                }
                found.truncate(k);
                found.sort_by(order);
            }
            _ => found.sort_by(order),
        }
        let near = found.iter().map(|&(_, id, t)| (id, t)).collect();
        self.near.found = found;
        near
    }

    /// The grid's cell index (built for the creatures as they are now).
    #[cfg(test)]
    fn near_index_for_test(&mut self) -> &CellIndex {
        self.refresh_near_grid();
        &self.near.index
    }

    /// The grid built again when creatures may have moved, come or gone since it was.
    fn refresh_near_grid(&mut self) {
        let key = (self.frame, self.removals, self.creatures.len());
        if self.near.key == key {
            return;
        }
        let mut g = NearGrid {
            key,
            ..NearGrid::default()
        };
        // Cells numbered as first met (in creature order), each filled in creature order.
        let mut number: FxHashMap<(i32, i32), u32> = FxHashMap::default();
        for c in &self.creatures {
            let e = Entry {
                at: c.body_pose().0,
                id: c.id,
                type_id: c.type_id,
                team: c.team,
                animated: c.rag.is_none(),
            };
            let i = *number.entry(cell_of(e.at)).or_insert_with(|| {
                g.cells.push(Cell::default());
                g.cells.len() as u32 - 1
            });
            g.cells[i as usize].entries.push(e);
        }
        g.cells.iter_mut().for_each(Cell::group);
        g.index = CellIndex::new(number);
        self.near = g;
    }

    /// Puts creature `id` in `team` (`None`: none), now and in a recording.
    pub fn set_team(&mut self, id: CreatureId, team: Option<u32>) {
        self.log(|| super::record::Input::Command {
            cmd: super::Command::SetTeam(id, team),
        });
        if let Some(c) = self.creature_mut(id) {
            c.team = team;
        }
        // The grid holds every creature's team: built again at the next query.
        self.near = NearGrid::default();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::locomotion::def::tests::spider;

    /// `n` creatures of two types and two teams over a square `span` m wide, every fifth
    /// in physics.
    fn world_of(n: u32, span: f32) -> (World, TypeId, TypeId) {
        let mut w = World::new(3);
        let a = w.register_type("t/a", spider().validate().expect("valid"));
        let b = w.register_type("t/b", spider().validate().expect("valid"));
        let mut rng = 7u64;
        for i in 0..n {
            let x = (super::super::navigation::unit_random(&mut rng) - 0.5) * span;
            let z = (super::super::navigation::unit_random(&mut rng) - 0.5) * span;
            let t = if i % 3 == 0 { b } else { a };
            let id = w.spawn(t, Vec3::new(x, 0.0, z), 0.0).expect("spawn");
            w.set_team(id, Some(i % 2));
            // Every fifth in physics (not on its feet: what `animated` leaves out).
            if i % 5 == 0 {
                w.push(crate::sim::Command::Ragdoll(
                    id,
                    crate::sim::RagdollRequest::default(),
                ));
            }
        }
        w.step(crate::sim::TICK_DT);
        assert!(w.creatures().iter().any(|c| c.rag.is_some()));
        (w, a, b)
    }

    #[test]
    fn the_grid_answers_what_a_scan_of_every_creature_answers() {
        // A crowd (its cells indexed by an array over the box it fills) and creatures
        // scattered over 3 km (by a map).
        for span in [60.0, 3000.0] {
            answers_as_a_scan(span);
        }
    }

    fn answers_as_a_scan(span: f32) {
        let (mut w, a, _) = world_of(400, span);
        let dense = matches!(w.near_index_for_test(), CellIndex::Dense { .. });
        assert_eq!(dense, span < 100.0, "the index for a span of {span} m");
        let s = span / 60.0;
        let filters = [
            NearFilter::default(),
            NearFilter {
                type_id: Some(a),
                ..NearFilter::default()
            },
            NearFilter {
                not_team: Some(1),
                limit: Some(5),
                exclude: Some(CreatureId(3)),
                ..NearFilter::default()
            },
            NearFilter {
                team: Some(1),
                limit: Some(1),
                ..NearFilter::default()
            },
            // The battle's question, and on its feet alone.
            NearFilter {
                not_team: Some(0),
                animated: true,
                limit: Some(1),
                ..NearFilter::default()
            },
            NearFilter {
                animated: true,
                ..NearFilter::default()
            },
        ];
        // Places all over the crowd and past its edge, as the ring search sees them.
        let mut rng = 11u64;
        let mut places = vec![
            (Vec3::ZERO, 6.0 * s),
            (Vec3::new(12.0, 0.0, -7.0) * s, 13.0 * s),
            (Vec3::new(-29.0, 0.0, 29.0) * s, 3.0 * s),
            (Vec3::ZERO, 1000.0 * s),
            // Far outside the crowd, and a disc that reaches it from there.
            (Vec3::new(90.0, 0.0, 0.0) * s, 5.0 * s),
            (Vec3::new(90.0, 0.0, 0.0) * s, 70.0 * s),
        ];
        for _ in 0..40 {
            let x = super::super::navigation::unit_random(&mut rng) * 80.0 - 40.0;
            let z = super::super::navigation::unit_random(&mut rng) * 80.0 - 40.0;
            let r = super::super::navigation::unit_random(&mut rng) * 20.0 + 0.5;
            places.push((Vec3::new(x, 0.0, z) * s, r * s));
        }
        for (k, f) in filters.iter().enumerate() {
            for (p, r) in places.iter().copied() {
                let near = w.creatures_near(p, r, f);
                // Each with its own type.
                for (id, t) in &near {
                    assert_eq!(w.creature(*id).map(|c| c.type_id), Some(*t));
                }
                let got: Vec<CreatureId> = near.into_iter().map(|(id, _)| id).collect();
                // The same by brute force.
                let mut want: Vec<(f32, CreatureId)> = w
                    .creatures()
                    .iter()
                    .filter(|c| {
                        f.type_id.is_none_or(|t| c.type_id == t)
                            && f.team.is_none_or(|t| c.team == Some(t))
                            && f.not_team.is_none_or(|t| c.team != Some(t))
                            && (!f.animated || c.rag.is_none())
                            && f.exclude != Some(c.id)
                    })
                    .map(|c| (c.body_pose().0.distance(p), c.id))
                    .filter(|(d, _)| *d <= r)
                    .collect();
                want.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
                let want: Vec<CreatureId> = want
                    .into_iter()
                    .take(f.limit.unwrap_or(usize::MAX))
                    .map(|(_, id)| id)
                    .collect();
                assert_eq!(got, want, "filter {k} at {p} within {r} (span {span})");
            }
        }
    }
}
