//! The gait style in use (see [`crate::locomotion::style`]): chosen for the body's speed, switched
//! only when the new style's support rule already holds, its step numbers eased in.

use super::Locomotor;
use crate::locomotion::def::ValidCreatureDef;
use crate::locomotion::gait::GaitParams;
use crate::locomotion::style::{blend, wanted, STYLE_BLEND};

/// Share of the step trigger a planted leg must have drifted to lift with the rest of its
/// group (see [`Locomotor::keep_groups_together`]).
const JOIN: f32 = 0.3;

/// Which style a creature steps in, and how far the last change has blended.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StyleState {
    /// The style in use (index into the type's styles, slowest first).
    pub index: usize,
    /// The style it is blending from.
    from: usize,
    /// How far the blend has come, 0..1.
    mix: f32,
    /// The gait in use: a copy of the instance's, blended with the styles (kept so its
    /// curves are cloned only when the instance's gait changes: `gait_changed` drops it).
    gait: Option<GaitParams>,
}

impl StyleState {
    /// A creature of `def` starting at rest: its slowest style, fully in.
    pub(crate) fn at_rest(def: &ValidCreatureDef) -> StyleState {
        StyleState {
            index: 0,
            from: 0,
            mix: 1.0,
            gait: (!def.styles.is_empty()).then(|| def.gait.clone()),
        }
    }
}

impl Locomotor {
    /// The name of the gait style in use (`None` for a type without styles).
    pub fn style_name<'a>(&self, def: &'a ValidCreatureDef) -> Option<&'a str> {
        def.styles.get(self.style.index).map(|s| s.name.as_str())
    }

    /// The instance's gait has changed (a script's `c.gait = …`, a reload): the styled copy
    /// is made again from it on the next tick, curves and all. Whoever sets a creature's gait
    /// calls this (`Creature::set_gait`).
    pub fn gait_changed(&mut self) {
        self.style.gait = None;
    }

    /// The group `leg` steps with in the style in use.
    pub(super) fn group_of(&self, def: &ValidCreatureDef, leg: usize) -> usize {
        match def
            .styles
            .get(self.style.index)
            .and_then(|s| s.groups.get(leg))
        {
            Some(g) => *g,
            None => def.legs[leg].group,
        }
    }

    /// The number of groups in the style in use and whether they take turns in order.
    pub(super) fn group_order(&self, def: &ValidCreatureDef) -> Option<usize> {
        match def.styles.get(self.style.index) {
            Some(s) => s.ordered.then_some(s.group_count),
            None => def.ordered_groups.then_some(def.group_count),
        }
    }

    /// The gait this tick steps with, out of the state (put back with [`Self::restore`]): the
    /// instance's `gait` blended into the style its speed (or the speed asked of it) wants.
    /// A faster or slower style takes
    /// over only when at least its `min_grounded` feet stand, so the switch never lifts a
    /// foot the new rule needs; the phase bookkeeping restarts with the new groups.
    pub(super) fn restyle(
        &mut self,
        def: &ValidCreatureDef,
        gait: &GaitParams,
        dt: f32,
    ) -> GaitParams {
        let mut out = self.style.gait.take().unwrap_or_else(|| gait.clone());
        // A reload may have left the type fewer styles than the ones it was in.
        let last = def.styles.len().saturating_sub(1);
        self.style.index = self.style.index.min(last);
        self.style.from = self.style.from.min(last);
        // The speed it goes or is asked to go, whichever is faster: a body held back by the
        // legs of a slower style would never reach the speed of the one that can carry it.
        let speed = self.speed().max(self.desired_speed);
        let want = wanted(&def.styles, self.style.index, speed);
        if want != self.style.index {
            let need = def.styles[want].min_grounded(gait);
            let standing = self.legs.iter().filter(|l| l.grounded).count();
            if standing >= need || self.airborne || self.jump.is_some() {
                self.style.from = self.style.index;
                self.style.index = want;
                self.style.mix = 0.0;
                self.phase_stepped = 0;
                self.last_group = None;
            }
        }
        if dt > 0.0 {
            self.style.mix = (self.style.mix + dt / STYLE_BLEND).min(1.0);
        }
        let styles = &def.styles;
        blend(
            gait,
            &styles[self.style.from],
            &styles[self.style.index],
            self.style.mix,
            &mut out,
        );
        out
    }

    /// A styled gait keeps each group's legs stepping together: when a group lifts, its other
    /// planted legs that have drifted [`JOIN`] of the way to wanting a step lift with it
    /// (never below `min_grounded`). Without this, legs a style change put in one group from
    /// different phases (a gallop's pair becoming a trot's diagonal) would stay apart, one
    /// foot at a time, and hold the body back at every stretch.
    pub(super) fn keep_groups_together(&self, gait: &GaitParams, scratch: &mut super::Scratch) {
        let Some(first) = scratch.steps.first().copied() else {
            return;
        };
        let view = &scratch.views;
        if view[first].emergency {
            return;
        }
        let group = view[first].group;
        let mut grounded = view.iter().filter(|l| l.grounded).count() - scratch.steps.len();
        for (i, l) in view.iter().enumerate() {
            if grounded <= gait.min_grounded {
                break;
            }
            if l.grounded
                && l.group == group
                && !l.blocked
                && l.urgency >= JOIN
                && !scratch.steps.contains(&i)
            {
                scratch.steps.push(i);
                grounded -= 1;
            }
        }
    }

    /// Keeps the blended gait for the next tick.
    pub(super) fn restore(&mut self, styled: GaitParams) {
        self.style.gait = Some(styled);
    }
}

#[cfg(test)]
mod tests {
    use crate::locomotion::def::tests::spider;
    use crate::locomotion::style::StyleDef;
    use crate::locomotion::{FlatGround, Locomotor};

    #[test]
    fn a_style_the_type_no_longer_has_falls_back_to_its_last() {
        // A reload can leave a creature in a style past the end of its type's new list.
        let mut d = spider();
        d.gait.styles = vec![
            StyleDef {
                name: "walk".into(),
                ..Default::default()
            },
            StyleDef {
                name: "run".into(),
                speed: Some(1.0),
                ..Default::default()
            },
        ];
        let def = d.validate().expect("valid");
        let ground = FlatGround(0.0);
        let mut loco = Locomotor::spawn(&def, glam::Vec3::ZERO, 0.0, &ground);
        loco.style.index = 5;
        let mut scratch = super::super::Scratch::default();
        loco.update(
            &def,
            &def.gait,
            &def.lean,
            &ground,
            1.0 / 60.0,
            &mut scratch,
        );
        assert_eq!(loco.style_name(&def), Some("walk"), "at rest: the slowest");
    }
}
