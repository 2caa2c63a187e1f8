//! A navigator's agents (its [`Crowd`]): path following on landmass archipelagos, one per
//! shard of the agents, and skitter's avoidance over them all — and where the crowd is: here,
//! or away on another thread while its deferred update runs ([`CrowdSlot`], [`CrowdUpdate`]),
//! waited for at its next use so the updates happen in the same order wherever they run.

use std::sync::mpsc;

use glam::Vec3;
use landmass::{Agent, AgentId, AgentState, AnimationLinkId, Archipelago};

use super::agents::{NavAgent, NavAgentState, ReachedLink, YUp};
use super::avoid::{avoid, Borders, Mover, Scratch};

/// How many archipelagos a navigator splits its agents over: the most ticks a crowd's
/// update is spread over.
pub(crate) const SHARDS: usize = 6;

/// Which archipelago agent `key` is in.
fn shard(key: u32) -> usize {
    key as usize % SHARDS
}

/// An agent's state in skitter's terms.
fn state_of(s: AgentState) -> NavAgentState {
    match s {
        AgentState::Idle | AgentState::Paused => NavAgentState::Idle,
        AgentState::ReachedTarget => NavAgentState::Arrived,
        AgentState::Moving => NavAgentState::Moving,
        AgentState::ReachedAnimationLink => NavAgentState::AtLink,
        AgentState::UsingAnimationLink => NavAgentState::OnLink,
        AgentState::AgentNotOnNavMesh => NavAgentState::OffMesh,
        AgentState::TargetNotOnNavMesh | AgentState::NoPath => NavAgentState::NoPath,
    }
}

/// Where a navigator's crowd is.
pub(super) enum CrowdSlot {
    Here(Box<Crowd>),
    /// Taken by [`Navigator::take_crowd_update`](super::Navigator::take_crowd_update): it comes back through the channel, updated.
    Away(mpsc::Receiver<Box<Crowd>>),
}

/// A navigator's agents: path following (landmass) and avoidance.
pub(crate) struct Crowd {
    /// Agents are split over [`SHARDS`] archipelagos by key (landmass only follows paths, so
    /// they need not see each other): a crowd's paths update one share per tick, and no
    /// update walks the others.
    archs: Vec<Archipelago<YUp>>,
    borders: Borders,
    neighbourhood: f32,
    /// Every agent as avoidance sees it, sorted by key: bodies are fed here every tick and
    /// copied into landmass only on their turn (a crowd's agents live in one dense array,
    /// not behind a map and landmass's slot map).
    movers: Vec<Mover>,
    /// `movers[i]`'s landmass agent, and whether it has had no turn since it was added.
    slots: Vec<(AgentId, bool)>,
    /// Where the last lookup by key landed: the World asks in key order each tick, so the
    /// next one is usually the next index.
    hint: std::cell::Cell<usize>,
    scratch: Scratch,
    /// Each link's ids in each archipelago (`None` once disabled).
    link_ids: Vec<Option<Vec<landmass::AnimationLinkId>>>,
    /// Per agent (as `movers`): the link it has reached, as of its last turn.
    reached: Vec<Option<ReachedLink>>,
    /// An update deferred by [`Navigator::defer_planned`](super::Navigator::defer_planned) (`dt`, `tick`, `every`): it runs before
    /// anything else touches the crowd, wherever that is.
    pending: Option<(f32, u64, u64)>,
}

/// A crowd's deferred update, taken out of its navigator to run on another thread
/// ([`Navigator::take_crowd_update`](super::Navigator::take_crowd_update)); the navigator waits for it at its next use.
pub struct CrowdUpdate {
    crowd: Box<Crowd>,
    back: mpsc::Sender<Box<Crowd>>,
}

impl CrowdUpdate {
    /// Runs the update and hands the crowd back to its navigator.
    pub fn run(mut self) {
        self.crowd.run_pending();
        // A navigator dropped meanwhile no longer wants it.
        let _ = self.back.send(self.crowd);
    }
}

impl CrowdSlot {
    /// The crowd, here: back from its thread first if it is away (waiting for its update
    /// there to finish), and its deferred update run if it has one — so whatever touches the
    /// crowd sees it as the update left it, wherever the update ran.
    pub(super) fn here(&mut self) -> &mut Crowd {
        if let CrowdSlot::Away(back) = self {
            let crowd = back
                .recv()
                .unwrap_or_else(|_| panic!("a crowd's navigation update failed on its thread"));
            *self = CrowdSlot::Here(crowd);
        }
        let CrowdSlot::Here(crowd) = self else {
            unreachable!("the crowd came back above")
        };
        crowd.run_pending();
        crowd
    }

    /// The crowd's deferred update, if it has one, taken away to run elsewhere: the slot
    /// waits for the crowd at its next use.
    pub(super) fn take_update(&mut self) -> Option<CrowdUpdate> {
        let CrowdSlot::Here(crowd) = self else {
            return None;
        };
        crowd.pending?;
        let (back, away) = mpsc::channel();
        let CrowdSlot::Here(crowd) = std::mem::replace(self, CrowdSlot::Away(away)) else {
            unreachable!("matched above")
        };
        Some(CrowdUpdate { crowd, back })
    }
}

impl Crowd {
    /// No agents yet, on `archs` (one per shard) with `link_ids` (each link's id in each).
    pub(super) fn new(
        archs: Vec<Archipelago<YUp>>,
        link_ids: Vec<Option<Vec<AnimationLinkId>>>,
        borders: Borders,
        neighbourhood: f32,
    ) -> Crowd {
        Crowd {
            archs,
            borders,
            neighbourhood,
            movers: Vec::new(),
            slots: Vec::new(),
            hint: std::cell::Cell::new(0),
            scratch: Scratch::default(),
            link_ids,
            reached: Vec::new(),
            pending: None,
        }
    }

    /// How many agents there are.
    pub(super) fn len(&self) -> usize {
        self.movers.len()
    }

    /// Defers `update` (`dt`, `tick`, `every`) to run before anything else touches the
    /// crowd (nothing to do without agents).
    pub(super) fn defer(&mut self, update: (f32, u64, u64)) {
        if !self.movers.is_empty() {
            self.pending = Some(update);
        }
    }

    /// Takes link `index` off every archipelago.
    pub(super) fn disable_link(&mut self, index: usize) {
        if let Some(ids) = self.link_ids.get_mut(index).and_then(Option::take) {
            for (arch, id) in self.archs.iter_mut().zip(ids) {
                arch.remove_animation_link(id);
                // Queries refuse a changed archipelago until it updates (no time passes).
                arch.update(0.0);
            }
        }
    }

    /// Adds agent `key` as landmass's `agent` and avoidance's `mover`, or replaces it: what it
    /// was told before is void, it starts afresh (in place, when it was an agent).
    pub(super) fn add(&mut self, key: u32, agent: Agent<YUp>, mover: Mover) {
        let id = self.archs[shard(key)].add_agent(agent);
        match self.find(key) {
            Some(i) => {
                self.archs[shard(key)].remove_agent(self.slots[i].0);
                self.movers[i] = mover;
                self.slots[i] = (id, true);
                self.reached[i] = None;
            }
            None => {
                let i = self.movers.partition_point(|m| m.key < key);
                self.movers.insert(i, mover);
                self.slots.insert(i, (id, true));
                self.reached.insert(i, None);
            }
        }
    }
    /// Runs the deferred update, if there is one.
    pub(super) fn run_pending(&mut self) {
        if let Some((dt, tick, every)) = self.pending.take() {
            self.step(dt, tick, every);
        }
    }

    /// Agent `key`, at a link, starts crossing it: landmass leaves it be until it is added
    /// again (its body still fed: others avoid it).
    pub(super) fn start_link(&mut self, key: u32) {
        if let Some(i) = self.find(key) {
            if let Some(a) = self.archs[shard(key)].get_agent_mut(self.slots[i].0) {
                let _ = a.start_animation_link();
            }
            self.movers[i].state = NavAgentState::OnLink;
            self.movers[i].preferred = Vec3::ZERO;
            self.movers[i].desired = Vec3::ZERO;
            self.reached[i] = None;
        }
    }

    /// Removes agent `key`.
    pub(super) fn remove_agent(&mut self, key: u32) {
        if let Some(i) = self.find(key) {
            self.archs[shard(key)].remove_agent(self.slots[i].0);
            self.movers.remove(i);
            self.slots.remove(i);
            self.reached.remove(i);
        }
    }

    /// Removes every agent.
    pub(super) fn clear_agents(&mut self) {
        for (m, (id, _)) in self.movers.iter().zip(&self.slots) {
            self.archs[shard(m.key)].remove_agent(*id);
        }
        self.movers.clear();
        self.slots.clear();
        self.reached.clear();
    }

    /// Agent `key` stays an agent (others avoid it) without a destination: arrived, it
    /// stands until it is given another.
    pub(super) fn stand(&mut self, key: u32) {
        if let Some(i) = self.find(key) {
            if let Some(a) = self.archs[shard(key)].get_agent_mut(self.slots[i].0) {
                a.current_target = None;
            }
        }
    }

    /// The index of agent `key` in `movers`: the hint or the one after it when the World
    /// asks in key order (every tick), else a binary search.
    fn find(&self, key: u32) -> Option<usize> {
        let h = self.hint.get();
        for i in [h, h + 1] {
            if self.movers.get(i).is_some_and(|m| m.key == key) {
                self.hint.set(i);
                return Some(i);
            }
        }
        let i = self.movers.binary_search_by_key(&key, |m| m.key).ok()?;
        self.hint.set(i);
        Some(i)
    }

    /// Where agent `key`'s body really is, and how fast it goes.
    pub(super) fn set_body(&mut self, key: u32, position: Vec3, velocity: Vec3) {
        if let Some(i) = self.find(key) {
            let m = &mut self.movers[i];
            m.position = position;
            m.velocity = velocity;
        }
    }

    /// Marks agent `key` far from the camera (level of detail; see [`Navigator::step`](super::Navigator::step)).
    pub(super) fn set_far(&mut self, key: u32, far: bool) {
        if let Some(i) = self.find(key) {
            self.movers[i].far = far;
        }
    }

    /// See [`Navigator::step`](super::Navigator::step).
    pub(super) fn step(&mut self, dt: f32, tick: u64, every: u64) {
        let every = every.clamp(1, SHARDS as u64);
        let span = dt * every as f32;
        let turn = tick % every;
        let round = tick / every;
        let mine = |key: u32| shard(key) as u64 % every == turn;
        let avoids = |m: &Mover| {
            mine(m.key) && (every == 1 || !m.far || (round + m.key as u64).is_multiple_of(2))
        };
        let Crowd {
            archs,
            movers,
            slots,
            reached,
            link_ids,
            ..
        } = self;
        for (m, (id, _)) in movers.iter().zip(slots.iter()) {
            if mine(m.key) {
                if let Some(a) = archs[shard(m.key)].get_agent_mut(*id) {
                    a.position = m.position;
                    a.velocity = m.velocity;
                }
            }
        }
        for (i, arch) in archs.iter_mut().enumerate() {
            if i as u64 % every == turn {
                arch.update(span);
            }
        }
        // New preferred velocities for those whose turn it was; the others keep theirs.
        for ((m, (id, fresh)), at) in movers
            .iter_mut()
            .zip(slots.iter_mut())
            .zip(reached.iter_mut())
        {
            if !mine(m.key) || m.state == NavAgentState::OnLink {
                continue;
            }
            let arch = &archs[shard(m.key)];
            let Some(a) = arch.get_agent(*id) else {
                continue;
            };
            m.state = state_of(a.state());
            *at = None;
            if m.state == NavAgentState::AtLink {
                let r = a.reached_animation_link();
                let index = r.and_then(|r| {
                    link_ids.iter().position(|ids| {
                        ids.as_ref()
                            .is_some_and(|ids| ids[shard(m.key)] == r.link_id)
                    })
                });
                match (r, index) {
                    (Some(r), Some(index)) => {
                        *at = Some(ReachedLink {
                            index,
                            from: r.start_point,
                            to: r.end_point,
                        })
                    }
                    _ => m.state = NavAgentState::Moving,
                }
            }
            m.preferred = match m.state {
                NavAgentState::Moving | NavAgentState::AtLink => *a.get_desired_velocity(),
                _ => Vec3::ZERO,
            };
            if m.preferred == Vec3::ZERO {
                m.desired = Vec3::ZERO;
            } else if *fresh {
                m.desired = m.preferred;
            }
            *fresh = false;
        }
        avoid(
            &mut self.movers,
            avoids,
            &self.borders,
            self.neighbourhood,
            span,
            &mut self.scratch,
        );
    }

    /// What agent `key` wants (as of its last turn).
    pub(super) fn agent(&self, key: u32) -> Option<NavAgent> {
        let i = self.find(key)?;
        let m = &self.movers[i];
        Some(NavAgent {
            desired: m.desired,
            state: m.state,
            preferred: m.preferred,
            link: self.reached[i],
        })
    }
}
