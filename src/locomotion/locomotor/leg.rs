//! One leg's state: where its foot is and wants to be, what its probe last saw, its swing;
//! and how a leg is stood (on the ground under its rest spot, on a foothold toward the
//! body, or hanging over nothing).

use glam::{Quat, Vec3};

use super::terrain::{Footing, LegMemo};
use super::{CAST_ABOVE_BODY, CAST_BELOW_REST, HANG_SWING};
use crate::locomotion::ground::GroundQuery;

/// State of one leg, world space.
#[derive(Clone, Debug, PartialEq)]
pub struct LegState {
    /// The foot (the IK goal).
    pub foot: Vec3,
    /// Planted on the ground (locked in place).
    pub grounded: bool,
    /// Where the foot wants to be: the cast landing spot (or the fallback on a miss).
    pub target: Vec3,
    /// Whether `target` is ground a foot can stand on (this tick's hit or the last good
    /// one): a swing lands only there; without one the foot hangs, waiting for ground.
    pub target_hit: bool,
    /// Hip, world space (from the last IK solve).
    pub hip: Vec3,
    /// Knee, world space (from the last IK solve).
    pub knee: Vec3,
    /// Legs of three or more segments: every joint between the hip and the foot, the knee
    /// first (empty for two-segment legs, whose one joint is `knee`).
    pub joints: Vec<Vec3>,
    /// The knee's pole direction, world space (unit): the side the knee bends toward.
    pub pole: Vec3,
    /// Hip-to-foot distance over leg length (above 1: overreach).
    pub reach: f32,
    /// A climber's foothold: the normal of the face its target is on (world, unit; +Y for
    /// walkers).
    pub normal: Vec3,
    /// The slope under the foot: the ground's normal where it stands, or where its swing will
    /// land (world, unit; +Y until a cast has said). What a drawn foot lies flat on.
    pub slope: Vec3,
    /// Last good ground hit for the target, kept for misses.
    pub(super) last_hit: Option<Vec3>,
    pub(super) swing_from: Vec3,
    /// Lifted outside its group's turn because it was stretched.
    pub(super) rescue: bool,
    /// An edge lies this leg's way: its landing probe crossed a drop deeper than
    /// `nav.step_height` (or found no ground), and still sees the ground that far below
    /// the plane the body stands on.
    pub(super) over_edge: bool,
    /// A wall lies this leg's way: its landing probe found ground standing more than
    /// `nav.step_height` above the body's plane (or started inside it), where no foot can
    /// stand and the body must not go.
    pub(super) at_wall: bool,
    /// Last tick's landing probe hit (before any fallback).
    pub(super) probe: Option<Vec3>,
    /// The extra queries last made for this leg's probe, kept out of line (most legs never
    /// need them; the hot state stays small).
    pub(super) memo: Option<Box<LegMemo>>,
    pub(super) swing_t: f32,
    pub(super) swing_duration: f32,
}

impl LegState {
    /// A swinging foot's step: where it lifted from, the share of the swing done, and the
    /// swing's length in seconds.
    pub fn swing(&self) -> (Vec3, f32, f32) {
        (self.swing_from, self.swing_t, self.swing_duration)
    }

    /// A foot standing at `foot` (`hit`: the ground cast that found it), hip at `hip`.
    pub(super) fn planted(foot: Vec3, hit: Option<Vec3>, hip: Vec3) -> LegState {
        LegState {
            foot,
            grounded: true,
            target: foot,
            target_hit: hit.is_some(),
            hip,
            knee: hip,
            joints: Vec::new(),
            pole: Vec3::Y,
            reach: 0.0,
            normal: Vec3::Y,
            slope: Vec3::Y,
            last_hit: hit,
            swing_from: foot,
            rescue: false,
            over_edge: false,
            at_wall: false,
            probe: hit,
            memo: None,
            swing_t: 0.0,
            swing_duration: 0.0,
        }
    }

    /// A foot hanging at `foot` over no ground it can stand on (a creature stood on a ledge's
    /// rim): not grounded, already swinging toward the target the stepper will find.
    pub(super) fn hanging(foot: Vec3, hip: Vec3) -> LegState {
        LegState {
            grounded: false,
            swing_duration: HANG_SWING,
            ..LegState::planted(foot, None, hip)
        }
    }

    /// Off its hold where it stands: a swing of `duration` s begins from there.
    pub(super) fn lose_hold(&mut self, duration: f32) {
        self.grounded = false;
        self.swing_from = self.foot;
        self.swing_t = 0.0;
        self.swing_duration = duration;
    }

    /// A leg of `def` stood with its body at `position` turned `rot`: its foot on the ground
    /// under its rest spot, else on the first foothold on the way back toward the body,
    /// else hanging at the rest spot.
    pub(super) fn stood<G: GroundQuery + ?Sized>(
        leg: &crate::locomotion::def::ValidLeg,
        position: Vec3,
        rot: Quat,
        footing: &Footing,
        ground: &G,
    ) -> LegState {
        let rest = position + rot * leg.rest;
        let hip = position + rot * leg.hip;
        let max = CAST_ABOVE_BODY + (position.y - rest.y) + CAST_BELOW_REST;
        [0.0f32, 0.35, 0.6, 0.85]
            .iter()
            .find_map(|t| {
                let q = rest.lerp(Vec3::new(position.x, rest.y, position.z), *t);
                let origin = Vec3::new(q.x, position.y + CAST_ABOVE_BODY, q.z);
                footing.cast(ground, origin, max)
            })
            .map_or_else(
                || LegState::hanging(rest, hip),
                |hit| LegState::planted(hit, Some(hit), hip),
            )
    }
}
