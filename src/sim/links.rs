//! The World's links and jumps: links as level pieces (`world.link`), kind names numbered
//! for landmass, a type's jump limits, agents crossing the links on their paths (the arc
//! checked against the level as it stands first: a blocked one is taken off that navmesh
//! and the agent re-plans), `c:jump`, and the path resumed after the landing.

use std::collections::HashSet;
use std::sync::Arc;

use glam::Vec3;

use super::nav_world::Status;
use super::navigation::settings_of;
use super::record::Input;
use super::world::{Creature, CreatureId, World, WorldEvent};
use super::LevelPiece;
pub use crate::locomotion::def::JumpLimits;
use crate::locomotion::{DefError, Intent, ValidCreatureDef};
use crate::nav::{JumpLimitError, JumpSettings, GENERATED_KINDS};

/// Why a `c:jump` is refused (see [`World::jump_check`]).
#[derive(Clone, Copy, Debug, PartialEq, thiserror::Error)]
pub enum JumpRefused {
    /// No creature has that id.
    #[error("creature {0} does not exist")]
    NoCreature(u32),
    /// It is a ragdoll.
    #[error("it is in physics (a ragdoll)")]
    Ragdoll,
    /// It is falling or flying already.
    #[error("it is in the air")]
    InTheAir,
    /// A climber off the level ground.
    #[error("it is on a wall or a ceiling")]
    OnAWall,
    /// A type without legs cannot push off.
    #[error("it has no legs")]
    NoLegs,
    /// The landing point has a NaN or an infinity.
    #[error("the landing point is not finite")]
    NotFinite,
    /// Nothing to land on near the point asked for.
    #[error("there is no ground to land on within 0.75 m of {}", fmt(*.0))]
    NoGround(Vec3),
    /// Beyond the type's `nav.jump` limits.
    #[error(transparent)]
    Limits(#[from] JumpLimitError),
    /// The arc meets the level.
    #[error("the way from {} to {} is blocked by the level", fmt(*from), fmt(*to))]
    Blocked {
        /// The ground point it would take off from.
        from: Vec3,
        /// The ground point it would land on.
        to: Vec3,
    },
}

/// A link between two places on the navmesh (`world.link{...}`).
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct LinkDesc {
    /// Where it is taken from (a point on or near the navmesh).
    pub from: Vec3,
    /// Where it leads.
    pub to: Vec3,
    /// How wide its ends are, m (across the way between them).
    pub width: f32,
    /// Its kind (a name the mod chooses; `nav.links` in a type says which it takes).
    pub kind: String,
    /// Its cost in metres of walking (`None`: its length plus 2).
    pub cost: Option<f32>,
    /// Taken both ways.
    pub bidirectional: bool,
}

impl LinkDesc {
    /// Checks every field (`DefError` names the field).
    pub fn validate(&self) -> Result<(), DefError> {
        if !self.from.is_finite() {
            return Err(DefError::new("from", "must be a finite vec3"));
        }
        if !self.to.is_finite() {
            return Err(DefError::new("to", "must be a finite vec3"));
        }
        let len = self.from.distance(self.to);
        if !(0.1..=50.0).contains(&len) {
            return Err(DefError::new(
                "to",
                format!("must be 0.1 to 50 m from 'from' (it is {len:.2} m)"),
            ));
        }
        if !(self.width > 0.0 && self.width <= 20.0) {
            return Err(DefError::new("width", "must be > 0 and at most 20 (m)"));
        }
        if self.kind.is_empty() || self.kind.len() > 64 {
            return Err(DefError::new(
                "kind",
                "must be a name of 1 to 64 characters",
            ));
        }
        if let Some(c) = self.cost {
            if !(c.is_finite() && c >= 0.0) {
                return Err(DefError::new("cost", "must be >= 0"));
            }
        }
        Ok(())
    }
}

/// A type's jump settings for the nav layer: its limits (the defaults when it gives none),
/// its ride height and its body as a capsule along the jump.
pub fn jump_settings(def: &ValidCreatureDef) -> JumpSettings {
    let l = def.nav.jump.unwrap_or_default();
    let size = def.body.size;
    let radius = 0.5 * size.x.min(size.y);
    JumpSettings {
        gap: l.gap,
        up: l.up,
        down: l.down,
        ride: def.body.hover.unwrap_or(def.body.height),
        body_radius: radius,
        body_half: (0.5 * size.z - radius).max(0.0),
        speed: def.nav.speed,
    }
}

/// A creature crossing (or waiting at) a link on its path.
#[derive(Clone, Debug, PartialEq)]
pub struct LinkUse {
    /// The link's kind.
    pub kind: String,
    /// Its index on the creature's navmesh.
    pub index: usize,
    /// Where the creature takes it from, and where it leads.
    pub from: Vec3,
    /// See `from`.
    pub to: Vec3,
    /// Its brain took the crossing (`on_link` returned a value): it waits at the link's
    /// start until `c:jump`, `c:cross_link` or other orders.
    pub held: bool,
}

impl World {
    /// Adds a link on behalf of `owner` (a mod: it goes when the mod reloads). The navmesh
    /// is baked again with it, as for a box.
    pub fn add_link_for(&mut self, owner: &str, desc: LinkDesc) -> Result<(), DefError> {
        desc.validate()?;
        // Each end on the level (a link into thin air would never join a navmesh).
        self.refresh_level();
        for (field, p) in [("from", desc.from), ("to", desc.to)] {
            if self.ground_below(p + Vec3::Y * 1.5).is_none() {
                return Err(DefError::new(
                    field,
                    format!(
                        "{} has no ground within 1.5 m above or below it (build the level before its links)",
                        fmt(p)
                    ),
                ));
            }
        }
        self.log(|| Input::Link { desc: desc.clone() });
        let kind = self.link_kind(&desc.kind);
        self.level.links.push((desc.clone(), kind));
        self.pieces
            .push((owner.to_string(), LevelPiece::Link(desc)));
        self.level_changed();
        Ok(())
    }

    /// Adds a link (no owner).
    pub fn add_link(&mut self, desc: LinkDesc) -> Result<(), DefError> {
        self.add_link_for("", desc)
    }

    /// The number of a link kind (numbered in order of first use after the three a bake
    /// finds: jump, drop, hop).
    pub(super) fn link_kind(&mut self, name: &str) -> usize {
        if let Some(i) = self.link_kinds.iter().position(|k| k == name) {
            return i;
        }
        self.link_kinds.push(name.to_string());
        self.link_kinds.len() - 1
    }

    /// The kind names so far, by number.
    pub fn link_kinds(&self) -> &[String] {
        &self.link_kinds
    }

    /// A creature's `c:jump(to)` checked now: the ground point it would land on, or why
    /// it cannot (in physics, in the air, on a wall, no ground there, beyond its type's
    /// `nav.jump` limits, or the arc blocked by the level).
    pub fn jump_check(&mut self, id: CreatureId, to: Vec3) -> Result<Vec3, JumpRefused> {
        self.refresh_level();
        let c = self.creature(id).ok_or(JumpRefused::NoCreature(id.0))?;
        if c.rag.is_some() {
            return Err(JumpRefused::Ragdoll);
        }
        if c.loco.airborne || c.loco.jump.as_ref().is_some_and(|j| j.launched()) {
            return Err(JumpRefused::InTheAir);
        }
        if c.loco.is_climbing() && c.loco.climb.is_some_and(|cl| cl.up().y < 0.9) {
            return Err(JumpRefused::OnAWall);
        }
        if c.def.legs.is_empty() {
            return Err(JumpRefused::NoLegs);
        }
        if !to.is_finite() {
            return Err(JumpRefused::NotFinite);
        }
        let g = self.ground_query();
        use crate::locomotion::GroundQuery;
        let landing = g
            .cast_down(to + Vec3::Y * 0.75, 1.5)
            .ok_or(JumpRefused::NoGround(to))?;
        let js = jump_settings(&c.def);
        let from = World::agent_point(c);
        js.allows(from, landing, c.def.nav.radius)?;
        let arc = c.loco.jump_arc(&c.def, landing);
        if !g.arc_clear(&arc, &js) {
            return Err(JumpRefused::Blocked { from, to: landing });
        }
        Ok(landing)
    }

    /// Starts `c:jump`: a jump to ground point `to` (checked again: refused with an event
    /// when the level changed in between). A link it was holding at is taken by it.
    pub(super) fn apply_jump(&mut self, id: CreatureId, to: Vec3) {
        let landing = match self.jump_check(id, to) {
            Ok(l) => l,
            Err(why) => {
                self.events.push(WorldEvent::Refused {
                    id,
                    message: format!("c:jump to {} refused: {why}", fmt(to)),
                });
                return;
            }
        };
        if let Some(c) = self.creature_mut(id) {
            if let Some(l) = c.nav.as_mut().and_then(|g| g.link.as_mut()) {
                l.held = false;
            }
            c.loco.start_jump(None, landing);
        }
    }

    /// `on_link` returned a value: the brain takes the crossing. The built-in one stops
    /// before the take-off (a flight under way goes on).
    pub(super) fn hold_link(&mut self, id: CreatureId) {
        if let Some(c) = self.creature_mut(id) {
            let Some(l) = c.nav.as_mut().and_then(|g| g.link.as_mut()) else {
                return;
            };
            if c.loco.cancel_jump() {
                l.held = true;
                c.loco.intent = Intent::Idle;
            }
        }
    }

    /// `c:cross_link()`: the built-in crossing of the link a creature holds at.
    pub(super) fn cross_link(&mut self, id: CreatureId) {
        if let Some(c) = self.creature_mut(id) {
            let Some(l) = c.nav.as_mut().and_then(|g| g.link.as_mut()) else {
                return;
            };
            if l.held {
                l.held = false;
                let (from, to) = (l.from, l.to);
                c.loco.start_jump(Some(from), to);
            }
        }
    }

    /// Links crossed: a creature down from its jump (and settled) walks its path on from
    /// where it landed; one thrown into physics, or whose jump ended, lets its link go.
    pub(super) fn finish_crossings(&mut self) {
        for c in self.creatures.iter_mut() {
            let Some(g) = c.nav.as_mut() else { continue };
            let Some(l) = g.link.as_ref() else { continue };
            let done = c.rag.is_some()
                || (!l.held && c.loco.jump.is_none() && !c.loco.airborne && !c.loco.landing);
            if done {
                g.link = None;
                g.pending = true;
            }
        }
    }

    /// Agents that reached a link this tick (`reached`: creature index and link): each
    /// starts crossing it (its arc checked against the level as it stands, its brain told
    /// by a `Link` event), or, blocked, takes it off its navmesh and plans again.
    pub(super) fn begin_crossings(
        &mut self,
        reached: Vec<(usize, crate::nav::agents::ReachedLink)>,
    ) {
        if reached.is_empty() {
            return;
        }
        let version = self.level_version;
        let World {
            nav,
            creatures,
            level,
            events,
            physics,
            rigs,
            ground_collider,
            link_kinds,
            ..
        } = self;
        let ground = super::ground::RapierGround::new(
            physics,
            rigs,
            *ground_collider,
            level.boxes.is_empty(),
        );
        let input = || level.nav_input();
        for (i, r) in reached {
            let c = &mut creatures[i];
            if c.nav.as_ref().is_none_or(|g| g.link.is_some()) {
                continue;
            }
            let Status::Ready(n) = nav.get(settings_of(&c.def), version, &input) else {
                continue;
            };
            let Some(link) = n.links().get(r.index).cloned() else {
                continue;
            };
            let kind = link_kinds
                .get(link.kind)
                .cloned()
                .unwrap_or_else(|| "link".into());
            // From the link's start (the crouch glides there). A link the bake found was
            // checked on this very level (a navmesh and its links are baked again whenever
            // the level changes); a level's link is checked now.
            let js = jump_settings(&c.def);
            use crate::locomotion::GroundQuery;
            let real = |p: Vec3| ground.cast_down(p + Vec3::Y * 0.3, 0.6).unwrap_or(p);
            let from = real(r.from);
            let found = link.id >= crate::nav::GENERATED_ID;
            if !found && !ground.arc_clear(&js.arc(from, real(r.to)), &js) {
                n.disable_link(r.index);
                if let Some(g) = c.nav.as_mut() {
                    g.pending = true;
                }
                c.loco.intent = Intent::Idle;
                events.push(WorldEvent::NavWarning {
                    id: c.id,
                    message: format!(
                        "the {kind} link from {} to {} is blocked: it is off the navmesh until the level changes; planning again",
                        fmt(r.from),
                        fmt(r.to)
                    ),
                });
                continue;
            }
            n.start_link(c.id.0);
            c.loco.intent = Intent::Idle;
            c.loco.start_jump(Some(from), r.to);
            if let Some(g) = c.nav.as_mut() {
                g.link = Some(LinkUse {
                    kind: kind.clone(),
                    index: r.index,
                    from: r.from,
                    to: r.to,
                    held: false,
                });
            }
            events.push(WorldEvent::Link {
                id: c.id,
                kind,
                from: r.from,
                to: r.to,
            });
        }
    }
}

/// The link kinds a creature's type may take as numbers (`None`: every kind).
pub(super) fn permitted(def: &ValidCreatureDef, kinds: &[String]) -> Option<Arc<HashSet<usize>>> {
    let names = def.nav.links.as_ref()?;
    Some(Arc::new(
        names
            .iter()
            .filter_map(|n| kinds.iter().position(|k| k == n))
            .collect(),
    ))
}

/// Whether creature `c` is on a link (crossing or holding at it): its agent is left be.
pub(super) fn on_link(c: &Creature) -> bool {
    c.nav.as_ref().is_some_and(|g| g.link.is_some())
}

/// The kinds every World starts with.
pub(super) fn generated_kinds() -> Vec<String> {
    GENERATED_KINDS.iter().map(|k| k.to_string()).collect()
}

fn fmt(p: Vec3) -> String {
    format!("({:.2}, {:.2}, {:.2})", p.x, p.y, p.z)
}
