//! Gait: the live parameters of a creature's stepping, and the scheduler that decides which
//! planted feet lift this tick — never fewer than `min_grounded` on the ground, groups
//! alternating, the most urgent leg first.

use super::def::DefError;
use crate::math::Curve;

/// Stepping parameters of one creature instance (the type's, plus the instance's overrides).
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct GaitParams {
    /// Drift (m) of a planted foot's target that starts a step.
    pub step_trigger: f32,
    /// Step duration (s) at speed 0.
    pub step_duration: f32,
    /// Peak lift (m).
    pub step_height: f32,
    /// Lift over progress 0..1.
    pub step_arc: Curve,
    /// Multiplier on the step duration over body speed.
    pub speed_scale: Curve,
    /// Feet that must stay planted.
    pub min_grounded: usize,
    /// Landing prediction factor.
    pub lead: f32,
}

impl Default for GaitParams {
    /// The documented defaults; `min_grounded` 0 (a definition sets it from its legs).
    fn default() -> Self {
        GaitParams {
            step_trigger: 0.25,
            step_duration: 0.2,
            step_height: 0.12,
            step_arc: Curve::SineArc,
            speed_scale: Curve::Linear {
                xs: vec![0.0, 2.0],
                ys: vec![1.0, 0.6],
            },
            min_grounded: 0,
            lead: 0.5,
        }
    }
}

impl GaitParams {
    /// Checks every value for a creature with `legs` legs: each field's own check (see
    /// [`super::tuning::GAIT`]), then the rules across fields.
    pub fn validate(&self, legs: usize) -> Result<(), DefError> {
        super::tuning::check_all(super::tuning::GAIT, "gait", self)?;
        if legs > 0 && self.min_grounded >= legs {
            return Err(DefError::new(
                "gait.min_grounded",
                format!(
                    "must be less than the number of legs ({legs}), got {}",
                    self.min_grounded
                ),
            ));
        }
        for x in [0.0f32, 0.5, 1.0, 2.0, 5.0] {
            let s = self.speed_scale.eval(x);
            if !(s > 0.0 && s.is_finite()) {
                return Err(DefError::new(
                    "gait.speed_scale",
                    format!("must stay > 0 (it is {s} at speed {x})"),
                ));
            }
        }
        Ok(())
    }

    /// Step duration (s) at body speed `speed` (m/s): `step_duration · speed_scale(speed)`,
    /// never under 1/30 s.
    pub fn duration_at(&self, speed: f32) -> f32 {
        (self.step_duration * self.speed_scale.eval(speed)).max(1.0 / 30.0)
    }
}

/// What the scheduler needs to know about one leg.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct LegView {
    /// Foot on the ground.
    pub grounded: bool,
    /// Drift of the foot's target divided by the step trigger: ≥ 1 wants to step.
    pub urgency: f32,
    /// Gait group index.
    pub group: usize,
    /// Already stepped in the current phase (a group's turn): waits for the next phase, so
    /// one group cannot keep the air to itself and starve the others.
    pub blocked: bool,
    /// Grounded: stretched to the edge of its reach, so it may lift outside its group's turn
    /// (never below `min_grounded`). In the air: it was lifted that way, and does not
    /// decide whose turn it is.
    pub emergency: bool,
}

/// Chooses the grounded legs that start a step now; pushes their indices onto `out`
/// (most urgent first). Guarantees: after lifting them, at least `min_grounded` feet stay
/// grounded (when that many were grounded before); outside emergencies only legs of one group
/// swing at a time; a leg steps at most once per phase; the group that stepped last yields
/// to another group that also wants to step. With `order` (the number of groups), groups
/// take turns in index order — the next group after the last goes first when it wants to
/// step — so a wave runs along the body.
pub(crate) fn choose_steps(
    legs: &[LegView],
    min_grounded: usize,
    last_group: Option<usize>,
    order: Option<usize>,
    out: &mut Vec<usize>,
) {
    let mut grounded = legs.iter().filter(|l| l.grounded).count();
    if grounded <= min_grounded {
        return;
    }
    // Legs already in the air fix the group that may join them.
    let swinging_group = legs
        .iter()
        .find(|l| !l.grounded && !l.emergency)
        .map(|l| l.group);
    let wants = |g: usize| {
        legs.iter()
            .any(|l| l.group == g && l.grounded && !l.blocked && l.urgency >= 1.0)
    };
    let next = match (order, last_group) {
        (Some(k), Some(last)) if k > 0 => Some((last + 1) % k).filter(|g| wants(*g)),
        _ => None,
    };
    let group = match swinging_group.or(next) {
        Some(g) => g,
        None => {
            // Pick the group of the best candidate; the last group's legs count half.
            let mut best: Option<(f32, usize)> = None;
            for l in legs
                .iter()
                .filter(|l| l.grounded && !l.blocked && l.urgency >= 1.0)
            {
                let score = if Some(l.group) == last_group {
                    l.urgency * 0.5
                } else {
                    l.urgency
                };
                if best.is_none_or(|(s, _)| score > s) {
                    best = Some((score, l.group));
                }
            }
            match best {
                Some((_, g)) => g,
                None => usize::MAX,
            }
        }
    };
    let start = out.len();
    for (i, l) in legs.iter().enumerate() {
        let in_turn = l.group == group && !l.blocked && l.urgency >= 1.0;
        if l.grounded && (in_turn || l.emergency) {
            out.push(i);
        }
    }
    let key = |i: usize| (legs[i].emergency, legs[i].urgency);
    out[start..].sort_by(|a, b| {
        let (ea, ua) = key(*a);
        let (eb, ub) = key(*b);
        eb.cmp(&ea).then(ub.total_cmp(&ua)).then(a.cmp(b))
    });
    let mut keep = start;
    for k in start..out.len() {
        if grounded > min_grounded {
            out[keep] = out[k];
            keep += 1;
            grounded -= 1;
        }
    }
    out.truncate(keep);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A tiny deterministic generator for the randomized tests.
    struct Lcg(u64);
    impl Lcg {
        fn next(&mut self) -> f32 {
            self.0 = self
                .0
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((self.0 >> 33) as f32) / (1u64 << 31) as f32
        }
    }

    fn view(grounded: bool, urgency: f32, group: usize) -> LegView {
        LegView {
            grounded,
            urgency,
            group,
            blocked: false,
            emergency: false,
        }
    }

    #[test]
    fn ordered_groups_take_turns_in_index_order() {
        // Four groups, all wanting to step, group 3 the most urgent: after group 1 steps,
        // group 2 goes next in order (and by urgency alone, group 3 would have).
        let legs = [
            view(true, 1.1, 0),
            view(true, 1.1, 1),
            view(true, 1.2, 2),
            view(true, 3.0, 3),
        ];
        let mut out = Vec::new();
        choose_steps(&legs, 1, Some(1), Some(4), &mut out);
        assert_eq!(out, [2]);
        out.clear();
        choose_steps(&legs, 1, Some(1), None, &mut out);
        assert_eq!(out, [3], "unordered: the most urgent group");
        // The next group not wanting to step yet: the usual choice.
        let mut quiet = legs;
        quiet[2].urgency = 0.2;
        out.clear();
        choose_steps(&quiet, 1, Some(1), Some(4), &mut out);
        assert_eq!(out, [3]);
    }

    #[test]
    fn blocked_legs_wait_and_emergencies_jump_the_queue() {
        let mut legs = [
            view(false, 0.0, 0),
            view(true, 3.0, 0),
            view(true, 1.1, 1),
            view(true, 0.1, 1),
        ];
        legs[1].blocked = true;
        let mut out = Vec::new();
        choose_steps(&legs, 1, Some(0), None, &mut out);
        assert!(
            out.is_empty(),
            "the only group-0 candidate already stepped this phase"
        );
        legs[2].emergency = true;
        choose_steps(&legs, 1, Some(0), None, &mut out);
        assert_eq!(out, vec![2], "a stretched leg of another group may lift");
        out.clear();
        choose_steps(&legs, 3, Some(0), None, &mut out);
        assert!(out.is_empty(), "but never below min_grounded");
    }

    #[test]
    fn most_urgent_first_and_min_grounded_respected() {
        let legs = [
            view(true, 1.2, 0),
            view(true, 3.0, 0),
            view(true, 0.5, 1),
            view(true, 2.0, 0),
        ];
        let mut out = Vec::new();
        choose_steps(&legs, 2, None, None, &mut out);
        assert_eq!(
            out,
            vec![1, 3],
            "two most urgent of group 0, leaving 2 planted"
        );
    }

    #[test]
    fn only_the_swinging_group_may_join() {
        let legs = [
            view(false, 0.0, 0),
            view(true, 5.0, 1),
            view(true, 1.5, 0),
            view(true, 0.2, 1),
        ];
        let mut out = Vec::new();
        choose_steps(&legs, 1, Some(1), None, &mut out);
        assert_eq!(out, vec![2]);
    }

    #[test]
    fn groups_alternate() {
        let legs = [view(true, 1.5, 0), view(true, 1.2, 1)];
        let mut out = Vec::new();
        choose_steps(&legs, 1, Some(0), None, &mut out);
        assert_eq!(
            out,
            vec![1],
            "group 0 stepped last, group 1 wants to: group 1 goes"
        );
        out.clear();
        choose_steps(&legs, 1, Some(1), None, &mut out);
        assert_eq!(out, vec![0]);
    }

    #[test]
    fn random_drift_sequences_never_drop_below_min_grounded() {
        let mut rng = Lcg(7);
        for trial in 0..300 {
            let n = 2 + (rng.next() * 9.0) as usize;
            let groups = 1 + (rng.next() * 3.0) as usize;
            let min_grounded = (rng.next() * n as f32) as usize % n;
            let mut grounded = vec![true; n];
            let mut stepped = vec![false; n];
            let mut rescue = vec![false; n];
            let mut left = vec![0u32; n];
            let mut last = None;
            let mut out = Vec::new();
            let mut steps = 0;
            for _tick in 0..400 {
                // Random drift; feet in the air land after a random number of ticks.
                if grounded.iter().all(|g| *g) {
                    stepped.iter_mut().for_each(|s| *s = false);
                }
                let legs: Vec<LegView> = (0..n)
                    .map(|i| {
                        let emergency = if grounded[i] {
                            rng.next() < 0.02
                        } else {
                            rescue[i]
                        };
                        LegView {
                            blocked: stepped[i],
                            emergency,
                            ..view(grounded[i], rng.next() * 3.0, i % groups)
                        }
                    })
                    .collect();
                out.clear();
                choose_steps(&legs, min_grounded, last, None, &mut out);
                for &i in &out {
                    assert!(grounded[i]);
                    grounded[i] = false;
                    stepped[i] = true;
                    rescue[i] = legs[i].emergency;
                    left[i] = 1 + (rng.next() * 12.0) as u32;
                    last = Some(i % groups);
                    steps += 1;
                }
                let on_ground = grounded.iter().filter(|g| **g).count();
                assert!(
                    on_ground >= min_grounded,
                    "trial {trial}: {on_ground} < {min_grounded}"
                );
                let air: Vec<usize> = (0..n)
                    .filter(|i| !grounded[*i] && !rescue[*i])
                    .map(|i| i % groups)
                    .collect();
                assert!(
                    air.windows(2).all(|w| w[0] == w[1]),
                    "two groups in the air outside an emergency"
                );
                for i in 0..n {
                    if !grounded[i] {
                        left[i] -= 1;
                        if left[i] == 0 {
                            grounded[i] = true;
                        }
                    }
                }
            }
            assert!(steps > 0, "trial {trial} never stepped");
        }
    }

    #[test]
    fn duration_shrinks_with_speed_and_has_a_floor() {
        let g = GaitParams {
            step_height: 0.1,
            min_grounded: 4,
            ..GaitParams::default()
        };
        assert!((g.duration_at(0.0) - 0.2).abs() < 1e-6);
        assert!((g.duration_at(2.0) - 0.12).abs() < 1e-6);
        assert!(g.duration_at(1.0) < g.duration_at(0.5));
        let fast = GaitParams {
            step_duration: 0.001,
            ..g
        };
        assert!((fast.duration_at(0.0) - 1.0 / 30.0).abs() < 1e-6);
    }
}
