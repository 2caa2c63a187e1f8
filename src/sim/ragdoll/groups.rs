//! Interaction groups: rigs that may touch each other within a tick share a physics world;
//! the rest are apart. Each tick the rigs' bounds (their parts' centres, grown by a part's
//! size and a tick's motion) are swept along x, in strips along z, and joined where they
//! overlap; a group keeps the world most of its rigs are in (a rig that joins it is rebuilt
//! there from its plain data; one that leaves goes to its new group's world). The worlds step
//! apart — on the pool's threads when there is one — each a single-threaded rapier step of
//! its own bodies: the same result at any thread count, and a crowd's step no longer one
//! world growing with it.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use glam::Vec3;
use rapier3d::prelude::PhysicsWorld;

use super::rig;
use super::step::{self, OwnPartsApart};
use super::Rigs;
use crate::sim::ground::SOLVER_ITERATIONS;
use crate::sim::level::Level;
use crate::sim::world::{Creature, CreatureId};
use crate::sim::World;

/// How far beyond its parts' centres a rig may reach within a tick (m): a part's half size
/// (the largest, a torso or a limb's capsule) and a margin.
const REACH: f32 = 0.45;
/// The bounds grow by this many ticks of a part's speed.
const AHEAD: f32 = 2.0 / 60.0;
/// Rigs that share a world stay together until a gap this much wider than the bounds'
/// opens between them (m): a group splits only when its parts are clearly apart, not each
/// time two neighbours' bounds flicker apart and together (every move rebuilds a rig
/// without rapier's warm start; in a 400-soldier pile, moves without this margin never
/// stopped and kept the pile from coming to rest).
const SPLIT_MARGIN: f32 = 0.5;

/// A group world's rigs with their creatures, in id order.
type Members<'a> = Vec<(&'a mut crate::sim::world::Creature, &'a mut rig::Rig)>;

/// A group's physics world: skitter's settings and the level's colliders.
fn group_world(level: &Level) -> PhysicsWorld {
    let mut w = crate::sim::ground::physics_world();
    level.build_colliders(&mut w.colliders);
    w
}

/// Colours (below `colours`, at most 32) for rigs with colours `now` (in id order) so that
/// no two that may touch (`touch[i]`: the indices of those rig `i` may touch) share one:
/// each in order keeps its colour unless a rig before it that it may touch has it, else
/// takes the lowest no rig it may touch has now (failing that, the lowest none before it
/// has; failing that, none: uncoloured parts touch every part). So every pair that may
/// touch differs, a colour changes only when a neighbour brings the same one, and the
/// choice depends on the rigs' state alone (any thread count).
pub(super) fn choose_colours(
    now: &[Option<u32>],
    touch: &[Vec<usize>],
    colours: u32,
) -> Vec<Option<u32>> {
    let all = u32::MAX.checked_shr(32 - colours.min(32)).unwrap_or(0);
    let lowest = |taken: u32| (taken & all != all).then(|| (!taken).trailing_zeros());
    let mut colour = now.to_vec();
    for i in 0..colour.len() {
        let (mut before, mut after) = (0u32, 0u32);
        for &j in &touch[i] {
            if let Some(c) = colour[j] {
                if j < i {
                    before |= 1 << c;
                } else {
                    after |= 1 << c;
                }
            }
        }
        colour[i] = match colour[i] {
            Some(c) if c < colours && before & (1 << c) == 0 => Some(c),
            _ => lowest(before | after).or_else(|| lowest(before)),
        };
    }
    colour
}

/// Each of `items` (in creature id order; `id`: an item's creature) with the rig of its
/// creature in `rigs` (an id-ordered map's entries), if any: one walk down both.
fn with_rigs<'a, T, R>(
    items: impl IntoIterator<Item = T>,
    id: impl Fn(&T) -> CreatureId,
    rigs: impl Iterator<Item = (&'a CreatureId, R)>,
) -> impl Iterator<Item = (T, Option<R>)> {
    let mut rigs = rigs.peekable();
    items.into_iter().map(move |t| {
        let k = id(&t);
        while rigs.peek().is_some_and(|(r, _)| **r < k) {
            rigs.next();
        }
        let r = rigs.next_if(|(r, _)| **r == k).map(|(_, r)| r);
        (t, r)
    })
}

fn find(parent: &mut [usize], mut i: usize) -> usize {
    while parent[i] != i {
        parent[i] = parent[parent[i]];
        i = parent[i];
    }
    i
}

/// Width of the strips along z that the sweep along x runs in (m): a crowd spread over z
/// would otherwise set every rig against every other in its stretch of x. About two of a
/// rig's bounds across, so a rig is in one or two strips.
const STRIP: f32 = 4.0;

/// Which of `boxes` (rig bounds, by creature id order; `world_of`: each one's world now) are
/// joined — their bounds overlap, or they share a world and their bounds grown by
/// [`SPLIT_MARGIN`] overlap — as a union-find forest (each tree's root its lowest index),
/// and which may touch within the tick (their bounds overlap), as neighbour lists. A sweep
/// along x in strips along z: a pair is looked at once, in the strip where both z-ranges,
/// grown by half the margin each side, have begun (the one holding the larger start), so a
/// box is put in the strips its grown range reaches where some box's range begins (never a
/// long run of empty ones, however far a glitch flung a part). The result does not depend
/// on the order pairs are found in: a tree's root is its lowest index, and a rig's
/// neighbours are a set.
fn sweep(
    boxes: &[(CreatureId, Vec3, Vec3)],
    world_of: &[Option<u32>],
) -> (Vec<usize>, Vec<Vec<usize>>) {
    let n = boxes.len();
    let half = SPLIT_MARGIN * 0.5;
    let strip_of = |z: f32| (z / STRIP).floor() as i32;
    let spans: Vec<(i32, i32)> = boxes
        .iter()
        .map(|b| (strip_of(b.1.z - half), strip_of(b.2.z + half)))
        .collect();
    let mut starts: Vec<i32> = spans.iter().map(|s| s.0).collect();
    starts.sort_unstable();
    starts.dedup();
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|a, b| {
        boxes[*a]
            .1
            .x
            .total_cmp(&boxes[*b].1.x)
            .then(boxes[*a].0.cmp(&boxes[*b].0))
    });
    // (strip, place in x order, box): sorted, each strip's boxes in x order.
    let mut entries: Vec<(i32, usize, usize)> = Vec::with_capacity(n * 2);
    for (k, &i) in order.iter().enumerate() {
        let (lo, hi) = spans[i];
        let from = starts.partition_point(|s| *s < lo);
        for &s in starts[from..].iter().take_while(|s| **s <= hi) {
            entries.push((s, k, i));
        }
    }
    entries.sort_unstable();
    let overlap = |a: &(CreatureId, Vec3, Vec3), b: &(CreatureId, Vec3, Vec3), m: f32| {
        a.1.y - m <= b.2.y && b.1.y - m <= a.2.y && a.1.z - m <= b.2.z && b.1.z - m <= a.2.z
    };
    let mut parent: Vec<usize> = (0..n).collect();
    let mut touch: Vec<Vec<usize>> = vec![Vec::new(); n];
    for run in entries.chunk_by(|a, b| a.0 == b.0) {
        let s = run[0].0;
        for (k, &(_, _, i)) in run.iter().enumerate() {
            for &(_, _, j) in &run[k + 1..] {
                if boxes[j].1.x > boxes[i].2.x + SPLIT_MARGIN {
                    break;
                }
                if spans[i].0.max(spans[j].0) != s {
                    continue;
                }
                let (a, b) = (&boxes[i], &boxes[j]);
                let near = b.1.x <= a.2.x && overlap(a, b, 0.0);
                if near {
                    touch[i].push(j);
                    touch[j].push(i);
                }
                let together = near
                    || (world_of[i].is_some()
                        && world_of[i] == world_of[j]
                        && overlap(a, b, SPLIT_MARGIN));
                if together {
                    let (ri, rj) = (find(&mut parent, i), find(&mut parent, j));
                    if ri != rj {
                        parent[ri.max(rj)] = ri.min(rj);
                    }
                }
            }
        }
    }
    (parent, touch)
}

impl World {
    /// Puts every creature in physics in the world of its interaction group (see the
    /// module's notes), building the rigs that have none.
    pub(super) fn regroup(&mut self) {
        let mut boxes: Vec<(CreatureId, Vec3, Vec3)> = Vec::new();
        for c in &self.creatures {
            let Some(rag) = c.rag.as_ref() else { continue };
            let (mut lo, mut hi) = (Vec3::splat(f32::MAX), Vec3::splat(f32::MIN));
            let mut speed = 0.0f32;
            for p in &rag.parts {
                lo = lo.min(p.position);
                hi = hi.max(p.position);
                speed = speed.max(p.linvel.length());
            }
            let grow = Vec3::splat(REACH + speed * AHEAD);
            boxes.push((c.id, lo - grow, hi + grow));
        }
        let n = boxes.len();
        // Each box's rig's world and colour now.
        let mut now: Vec<Option<(u32, Option<u32>)>> =
            with_rigs(&boxes, |b| b.0, self.rigs.rigs.iter())
                .map(|(_, r)| r.map(|r| (r.world, r.colour)))
                .collect();
        let world_of: Vec<Option<u32>> = now.iter().map(|w| w.map(|(k, _)| k)).collect();
        let (mut parent, touch) = sweep(&boxes, &world_of);
        // Groups, each its members (indices in id order), the largest first (ties: the
        // lowest id first). Each keeps the world most of its rigs are already in (ties: the
        // lowest key) unless a larger group took it; else it gets a new one. So a group that
        // grows or sheds a few keeps its world, and only the few are rebuilt.
        let mut members: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
        for i in 0..n {
            members.entry(find(&mut parent, i)).or_default().push(i);
        }
        let mut groups: Vec<Vec<usize>> = members.into_values().collect();
        groups.sort_by(|a, b| {
            b.len()
                .cmp(&a.len())
                .then(boxes[a[0]].0.cmp(&boxes[b[0]].0))
        });
        let mut claimed: BTreeSet<u32> = BTreeSet::new();
        for group in &groups {
            let mut counts: BTreeMap<u32, usize> = BTreeMap::new();
            for &i in group {
                if let Some(k) = world_of[i] {
                    *counts.entry(k).or_default() += 1;
                }
            }
            let keep = counts
                .iter()
                .filter(|(k, _)| !claimed.contains(k))
                .max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(a.0)))
                .map(|(k, _)| *k);
            let key = keep.unwrap_or_else(|| {
                self.rigs.next_key += 1;
                self.rigs.next_key
            });
            claimed.insert(key);
            for &i in group {
                let id = boxes[i].0;
                match world_of[i] {
                    Some(k) if k == key => continue,
                    Some(_) => {
                        self.drop_rig(id);
                        self.rigs.moved += 1;
                    }
                    None => {}
                }
                // A rig rebuilt has no colour yet.
                now[i] = None;
                let Some(c) = self.creature(id) else { continue };
                let Some(rag) = c.rag.as_ref() else { continue };
                let (def, parts) = (c.def.clone(), rag.parts.clone());
                let level = &self.level;
                let world = self
                    .rigs
                    .worlds
                    .entry(key)
                    .or_insert_with(|| group_world(level));
                // A recovering one gets its anchor back when driven (`step::drive`).
                let mut r = rig::build(world, id, &def, &parts);
                r.world = key;
                self.rigs.rigs.insert(id, r);
            }
        }
        // Every rig is in a group and every group's rigs are in its world now: the worlds
        // no group claimed are empty.
        self.rigs.worlds.retain(|k, _| claimed.contains(k));
        let colours: Vec<Option<u32>> = now.iter().map(|w| w.and_then(|(_, c)| c)).collect();
        self.colour_rigs(&boxes, &colours, &touch);
    }

    /// Colours the rigs (see `rig::set_colour` and [`choose_colours`]); `boxes`: the rigs
    /// in id order, `now`: their colours, `touch`: which of them may touch this tick.
    fn colour_rigs(
        &mut self,
        boxes: &[(CreatureId, Vec3, Vec3)],
        now: &[Option<u32>],
        touch: &[Vec<usize>],
    ) {
        let chosen = choose_colours(now, touch, rig::COLOURS);
        for ((b, colour), was) in boxes.iter().zip(chosen).zip(now) {
            if colour != *was {
                if let Some((w, r)) = self.rigs.get_mut(b.0) {
                    rig::set_colour(w, r, colour);
                }
            }
        }
    }
}

/// Raises its flag when dropped.
struct Raise<'a>(&'a AtomicBool);

impl Drop for Raise<'_> {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Release);
    }
}

/// A world this large (rigs) steps first on a pool, the pool's other threads sharing out its
/// narrow phase before they take the rest of the tick's bodies (see [`step_worlds`]).
const LEAD_WORLD: usize = 32;

/// Every group's world: its rigs driven (muscles, balance, anchors), one rapier step if one
/// of them is awake, its parts read back — each world apart (a world's rigs touch only it
/// and their own creatures) — and `beside`, the tick's other bodies (locomotion), which
/// touches none of them. `rigged`: the creatures in physics, in id order. Whether a world
/// stepped, the worlds' wall clock, and what `beside` gave.
///
/// Called on a pool (`on_pool`), the worlds are shared out over its threads, one world a
/// job, the largest first, with `beside` alongside. A large world (a melee's pile) is the
/// tick's long pole: its step starts at once, and the other threads first help with its
/// narrow phase (vendored rapier's patch 4 shares its pairs out on the pool) — its largest
/// part, and the one part of it that can be shared — then, once its contacts are updated
/// (`PhysicsHooks::contacts_updated`), take the other worlds and `beside` while it solves.
/// Off a pool: `beside`, then every world in turn. Either way each world's step is the
/// same, so the results are too.
pub(in crate::sim) fn step_worlds<R: Send>(
    rigged: &mut [&mut Creature],
    rigs: &mut Rigs,
    level: &PhysicsWorld,
    on_pool: bool,
    dt: f32,
    beside: impl FnOnce() -> R + Send,
) -> (bool, Duration, R) {
    let t0 = Instant::now();
    // Each world's rigs with their creatures, in id order (both are).
    let mut jobs: BTreeMap<u32, Members> = BTreeMap::new();
    let creatures = rigged.iter_mut().map(|c| &mut **c);
    for (c, r) in with_rigs(creatures, |c| c.id, rigs.rigs.iter_mut()) {
        if let Some(r) = r {
            jobs.entry(r.world).or_default().push((c, r));
        }
    }
    let mut work: Vec<(&mut PhysicsWorld, Members)> = rigs
        .worlds
        .iter_mut()
        .filter_map(|(k, w)| Some((w, jobs.remove(k)?)))
        .collect();
    // The largest first (which world steps when changes nothing: they are apart).
    work.sort_by_key(|(_, rigs)| std::cmp::Reverse(rigs.len()));
    let run = |(w, rigs): &mut (&mut PhysicsWorld, Members), ready: Option<&AtomicBool>| {
        step_world(level, w, rigs, dt, ready)
    };
    // One world a job: rayon splits a slice as many ways as it has threads and splits
    // further only what another thread steals, so the first half (the largest world and the
    // next few) would stay with one thread while the other, its half done, idled.
    let spread = |work: &mut [(&mut PhysicsWorld, Members)]| {
        use rayon::prelude::*;
        work.par_iter_mut()
            .with_max_len(1)
            .map(|job| run(job, None))
            .reduce(|| false, |a, b| a || b)
    };
    if !on_pool {
        let r = beside();
        let t = Instant::now();
        let mut stepped = false;
        for job in work.iter_mut() {
            stepped |= run(job, None);
        }
        return (stepped, t.elapsed(), r);
    }
    match work.split_first_mut() {
        Some((lead, rest)) if lead.1.len() >= LEAD_WORLD => {
            let ready = AtomicBool::new(false);
            let ((a, ta), ((b, tb), r)) = rayon::join(
                || {
                    // Raised however the step ends (a panic too): nobody waits for ever.
                    let _raised = Raise(&ready);
                    (run(lead, Some(&ready)), t0.elapsed())
                },
                || {
                    // Help with the lead world's narrow phase until its contacts are done.
                    while !ready.load(Ordering::Acquire) {
                        if rayon::yield_now() != Some(rayon::Yield::Executed) {
                            std::hint::spin_loop();
                        }
                    }
                    rayon::join(|| (spread(rest), t0.elapsed()), beside)
                },
            );
            (a || b, ta.max(tb), r)
        }
        _ => {
            let ((stepped, t), r) = rayon::join(|| (spread(&mut work), t0.elapsed()), beside);
            (stepped, t, r)
        }
    }
}

/// One group's world: its rigs (with their creatures, in id order) driven, one rapier step
/// if one of them is awake, their parts read back (`level`: the level alone, for the balance
/// help's ray). Whether it stepped. `ready` is raised once the step's contacts are updated.
///
/// The world steps with the fewest substeps its rigs need (its own count); a rig that needs
/// more carries the rest on its bodies, which rapier gives their contact island only (every
/// body touching or jointed to them, transitively): a spider standing up in a soldiers'
/// melee steps the soldiers it leans on at its six substeps, not the whole group
/// (1 000-soldier battle, one thread: 7 % less physics); a limp one asks for none
/// ([`rig::Rig::extra_now`]). A world of one kind sets none on its bodies, and rapier then
/// does not sort them into substep groups.
fn step_world(
    level: &PhysicsWorld,
    w: &mut PhysicsWorld,
    rigs: &mut Members,
    dt: f32,
    ready: Option<&AtomicBool>,
) -> bool {
    for (c, r) in rigs.iter_mut() {
        step::drive(level, w, c, r);
    }
    let awake = rigs.iter().any(|(_, r)| !r.asleep);
    if awake {
        let fewest = rigs.iter().map(|(_, r)| r.extra_now()).min().unwrap_or(0);
        for (_, r) in rigs.iter_mut() {
            let own = r.extra_now() - fewest;
            if r.body_extra != own {
                rig::set_body_extra(w, r, own);
            }
        }
        w.integration_parameters.num_solver_iterations = SOLVER_ITERATIONS + fewest;
        // The lead world (the one stepped while the pool's other threads wait for its
        // contacts) shares its solve out too: a thread done with the other worlds and the
        // walkers joins it. The same results whoever joins (vendored rapier patch 6). No
        // more workers than cores: they wait for each other's stages spinning.
        w.physics_pipeline.solver_workers = if ready.is_some() {
            rayon::current_num_threads().min(crate::sim::cores())
        } else {
            1
        };
        w.step_with_events(&OwnPartsApart { ready }, &());
    }
    for (c, r) in rigs.iter_mut() {
        step::read_back(w, c, r, dt);
    }
    awake
}

#[cfg(test)]
mod tests {
    use glam::Vec3;
    use rapier3d::parry::query;

    use super::choose_colours;
    use crate::locomotion::def::tests::spider;
    use crate::sim::ground::SOLVER_ITERATIONS;
    use crate::sim::ragdoll::tests::{ragdoll, soldier};
    use crate::sim::TICK_DT;

    /// Whether every pair that may touch has two colours or an uncoloured rig.
    fn apart(colour: &[Option<u32>], touch: &[Vec<usize>]) -> bool {
        touch.iter().enumerate().all(|(i, near)| {
            near.iter()
                .all(|&j| colour[i].is_none() || colour[i] != colour[j])
        })
    }

    /// The strip sweep finds what looking at every pair finds: the same trees (each root its
    /// lowest index) and the same neighbours, for boxes of mixed sizes scattered over a
    /// field wider than many strips, some sharing worlds, some across strip edges, some a
    /// hair apart.
    #[test]
    fn the_strip_sweep_joins_and_neighbours_as_every_pair_looked_at_does() {
        use super::{find, sweep, SPLIT_MARGIN};
        use crate::sim::world::CreatureId;
        let mut seed = 0x2545_f491_u32;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            (seed % 10_000) as f32 / 10_000.0
        };
        for round in 0..20 {
            let n = 50 + round * 20;
            // Sparse enough that not everything joins (about half the field covered).
            let side = (4.5 * n as f32).sqrt();
            let boxes: Vec<(CreatureId, Vec3, Vec3)> = (0..n)
                .map(|i| {
                    let lo = Vec3::new(next() * side, next() * 0.3, next() * side - side * 0.5);
                    let size = Vec3::new(0.9 + next() * 1.5, 1.0 + next(), 0.9 + next() * 1.5);
                    (CreatureId(i as u32), lo, lo + size)
                })
                .collect();
            // One rig's bounds stretched far along z (a part flung by a glitch): in every
            // strip where another begins, and no run of empty ones between.
            let mut boxes = boxes;
            boxes[round].1.z = -1.0e7;
            boxes[round + 1].2.z = 1.0e30;
            let world_of: Vec<Option<u32>> = (0..n)
                .map(|_| (next() < 0.8).then(|| (next() * 4.0) as u32))
                .collect();
            let (mut parent, touch) = sweep(&boxes, &world_of);
            // Every pair, by the rule the sweep implements.
            let overlap = |a: &(CreatureId, Vec3, Vec3), b: &(CreatureId, Vec3, Vec3), m: f32| {
                (a.1 - m).cmple(b.2).all() && (b.1 - m).cmple(a.2).all()
            };
            let mut want_parent: Vec<usize> = (0..n).collect();
            let mut want_touch: Vec<Vec<usize>> = vec![Vec::new(); n];
            for i in 0..n {
                for j in i + 1..n {
                    let (a, b) = (&boxes[i], &boxes[j]);
                    let near = overlap(a, b, 0.0);
                    if near {
                        want_touch[i].push(j);
                        want_touch[j].push(i);
                    }
                    if near
                        || (world_of[i].is_some()
                            && world_of[i] == world_of[j]
                            && overlap(a, b, SPLIT_MARGIN))
                    {
                        let (ri, rj) = (find(&mut want_parent, i), find(&mut want_parent, j));
                        if ri != rj {
                            want_parent[ri.max(rj)] = ri.min(rj);
                        }
                    }
                }
            }
            let mut joined = 0;
            for i in 0..n {
                let (got, want) = (find(&mut parent, i), find(&mut want_parent, i));
                assert_eq!(got, want, "round {round}: box {i}'s group");
                joined += usize::from(got != i);
                let mut t = touch[i].clone();
                t.sort_unstable();
                assert_eq!(t, want_touch[i], "round {round}: box {i}'s neighbours");
            }
            assert!(
                joined > 0 && joined < n - 1,
                "round {round}: {joined} of {n} joined"
            );
        }
    }

    #[test]
    fn neighbours_get_different_colours_keep_theirs_and_go_uncoloured_past_the_last() {
        // A chain 0-1-2-3 (each touches the next), all new: 0, 1, 0, 1.
        let chain: Vec<Vec<usize>> = vec![vec![1], vec![0, 2], vec![1, 3], vec![2]];
        let c = choose_colours(&[None; 4], &chain, 30);
        assert_eq!(c, vec![Some(0), Some(1), Some(0), Some(1)]);
        // Kept when nothing clashes, even if not the lowest free.
        let kept = choose_colours(&[Some(7), Some(3), Some(9), Some(3)], &chain, 30);
        assert_eq!(kept, vec![Some(7), Some(3), Some(9), Some(3)]);
        // A clash: the later one moves, to a colour none of its neighbours has now.
        let moved = choose_colours(&[Some(2), Some(2), Some(0), None], &chain, 30);
        assert!(apart(&moved, &chain), "{moved:?}");
        assert_eq!(moved[0], Some(2));
        assert_eq!(moved[1], Some(1), "{moved:?}");
        // 34 that all touch each other: 30 colours, then uncoloured, every pair apart.
        let n = 34;
        let all: Vec<Vec<usize>> = (0..n)
            .map(|i| (0..n).filter(|j| *j != i).collect())
            .collect();
        let c = choose_colours(&vec![None; n], &all, 30);
        assert!(apart(&c, &all), "{c:?}");
        assert_eq!(c.iter().filter(|c| c.is_none()).count(), 4);
        assert!(c.iter().flatten().all(|c| *c < 30));
        // The same with stale colours beyond the range: they are not kept.
        let c = choose_colours(&vec![Some(31); n], &all, 30);
        assert!(
            apart(&c, &all) && c.iter().flatten().all(|c| *c < 30),
            "{c:?}"
        );
    }

    /// Limp soldiers packed in a tight block fall into a pile — parts of different rigs
    /// never sink into each other, whatever their colours — while rapier never pairs a
    /// coloured rig's own parts.
    #[test]
    fn a_pile_of_coloured_rigs_stays_solid_and_never_pairs_a_rigs_own_parts() {
        let mut w = crate::sim::world::tests::flat_world(40.0);
        let t = w.register_type("t/soldier", soldier().validate().expect("valid"));
        let ids: Vec<_> = (0..36)
            .map(|i| {
                let p = Vec3::new((i % 6) as f32 * 0.45, 0.0, (i / 6) as f32 * 0.35);
                w.spawn(t, p, i as f32).expect("spawn")
            })
            .collect();
        for id in &ids {
            ragdoll(&mut w, *id, 0.0);
        }
        let mut most_colours = 0;
        for tick in 0..150 {
            w.step(TICK_DT);
            let colours: std::collections::BTreeSet<_> =
                w.rigs.rigs.values().map(|r| r.colour).collect();
            most_colours = most_colours.max(colours.len());
            for pw in w.rigs.worlds.values() {
                for pair in pw.narrow_phase.contact_pairs() {
                    let (Some(a), Some(b)) = (
                        pw.colliders.get(pair.collider1),
                        pw.colliders.get(pair.collider2),
                    ) else {
                        continue;
                    };
                    let own = a.parent().is_some() && a.user_data == b.user_data;
                    assert!(!own, "tick {tick}: a rig's own parts paired");
                }
            }
        }
        assert!(
            most_colours > 3,
            "{most_colours} colours: the block was not crowded"
        );
        // Deepest overlap between parts of different rigs.
        let mut deepest = 0.0f32;
        for pw in w.rigs.worlds.values() {
            let parts: Vec<_> = pw
                .colliders
                .iter()
                .filter(|(_, c)| c.parent().is_some())
                .collect();
            for (k, (_, a)) in parts.iter().enumerate() {
                for (_, b) in &parts[k + 1..] {
                    if a.user_data == b.user_data {
                        continue;
                    }
                    let hit = query::contact(a.position(), a.shape(), b.position(), b.shape(), 0.0)
                        .expect("supported shapes");
                    if let Some(hit) = hit {
                        deepest = deepest.min(hit.dist);
                    }
                }
            }
        }
        // 4.6 cm at worst (the same uncoloured: a limp pile's own give); 33 cm when every
        // rig had one colour (their parts passed through each other).
        assert!(
            deepest > -0.08,
            "parts of two rigs {} m into each other",
            -deepest
        );
    }

    /// A world with a spider in physics at muscle strength `muscle` between two soldiers on
    /// their balance help (one group), and the spider.
    fn spider_between_soldiers(muscle: f32) -> (crate::sim::World, crate::sim::world::CreatureId) {
        let mut w = crate::sim::world::tests::flat_world(40.0);
        let sp = w.register_type("t/spider", spider().validate().expect("valid"));
        let so = w.register_type("t/soldier", soldier().validate().expect("valid"));
        let s = w.spawn(sp, Vec3::ZERO, 0.0).expect("spawn");
        ragdoll(&mut w, s, muscle);
        for x in [-1.3, 1.3] {
            let id = w.spawn(so, Vec3::new(x, 0.0, 0.0), 0.0).expect("spawn");
            ragdoll(&mut w, id, 0.7);
        }
        (w, s)
    }

    /// A spider standing on its muscles in one group with two soldiers on their balance
    /// help: the group's world steps at the soldiers' three substeps, the spider's bodies carry
    /// its three more, and it holds its stance as it does alone (2.5° off its pose on average;
    /// 5.2° when it stepped at the soldiers' three).
    #[test]
    fn a_spider_in_a_group_of_soldiers_keeps_its_substeps_and_its_stance() {
        let (mut w, s) = spider_between_soldiers(1.0);
        let (mut sum, mut n) = (0.0f32, 0usize);
        for tick in 0..180 {
            w.step(TICK_DT);
            assert_eq!(w.physics_groups().groups, 1, "tick {tick}: apart");
            if tick >= 30 {
                for d in w.joint_deviation_deg(s) {
                    sum += d;
                    n += 1;
                }
            }
        }
        let mean = sum / n as f32;
        assert!(mean < 3.5, "the spider {mean:.2}° off its pose");
        let spider_rig = &w.rigs.rigs[&s];
        let world = &w.rigs.worlds[&spider_rig.world];
        let soldier_extra = w
            .rigs
            .rigs
            .values()
            .map(|r| r.extra_iterations)
            .min()
            .expect("rigs");
        assert_eq!(
            world.integration_parameters.num_solver_iterations,
            SOLVER_ITERATIONS + soldier_extra
        );
        assert_eq!(
            soldier_extra + spider_rig.body_extra,
            spider_rig.extra_iterations
        );
        assert!(spider_rig.body_extra > 0);
    }

    /// A limp spider in a group of soldiers asks no extra substeps of the pile it lies in
    /// (it stands on nothing); with its muscles back it does again.
    #[test]
    fn a_limp_spider_asks_its_substeps_only_once_its_muscles_are_back() {
        let (mut w, s) = spider_between_soldiers(0.3);
        let extra = |w: &crate::sim::World| {
            let r = &w.rigs.rigs[&s];
            let world = &w.rigs.worlds[&r.world];
            (
                world.integration_parameters.num_solver_iterations,
                r.body_extra,
            )
        };
        for _ in 0..10 {
            w.step(TICK_DT);
        }
        assert_eq!(w.physics_groups().groups, 1, "apart");
        let soldiers = SOLVER_ITERATIONS + 1;
        assert_eq!(extra(&w), (soldiers, 0), "limp");
        w.creatures
            .iter_mut()
            .find(|c| c.id == s)
            .and_then(|c| c.rag.as_mut())
            .expect("in physics")
            .muscle = 1.0;
        w.step(TICK_DT);
        let (world, body) = extra(&w);
        assert_eq!(world, soldiers, "strong");
        assert_eq!(
            world + body,
            SOLVER_ITERATIONS + w.rigs.rigs[&s].extra_iterations
        );
        assert!(body > 0, "strong");
    }
}
