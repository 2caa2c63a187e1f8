//! Which side a limb is on, and the names the binder gives the limbs it finds: side words
//! anywhere in a bone's name, where the limb is when that says more, and legs numbered
//! front to back.

use glam::Vec3;

use super::bind::LegChain;
use super::Model;

/// The words of a bone's name: split at anything not a letter or a digit (`.`, `_`, `-`,
/// spaces), at a lower-case letter followed by a capital (`FrontLeft` → front, left), at a
/// run of capitals followed by a word (`IKBack` → ik, back), and between letters and digits
/// (`leg0Front` → leg, 0, front); lower-cased.
pub(super) fn words(name: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut cur = String::new();
    let cs: Vec<char> = name.chars().collect();
    for (i, c) in cs.iter().copied().enumerate() {
        if !c.is_alphanumeric() {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            continue;
        }
        if let Some(p) = cur.chars().last() {
            let next_lower = cs.get(i + 1).is_some_and(|n| n.is_lowercase());
            let split = (p.is_lowercase() && c.is_uppercase())
                || (p.is_uppercase() && c.is_uppercase() && next_lower)
                || (p.is_ascii_digit() != c.is_ascii_digit());
            if split {
                out.push(std::mem::take(&mut cur));
            }
        }
        cur.push(c);
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out.iter().map(|w| w.to_lowercase()).collect()
}

/// Side of a bone by its name: `Some(true)` left, `Some(false)` right, with the name
/// stripped of the side word (`Leg1Upper.L` → `leg1upper`). A side word anywhere, in any
/// case, with any separator or none: `FrontLeft`, `front_left`, `Left`, `.L`, `_l`, `L_`,
/// `FrontLeg.L.001`, `Foot IKBackRight`; else `left`/`right` inside a word.
pub(crate) fn side_of(name: &str) -> (Option<bool>, String) {
    let ws = words(name);
    let side = |w: &str| match w {
        "l" | "left" | "lt" | "lft" => Some(true),
        "r" | "right" | "rt" | "rgt" => Some(false),
        _ => None,
    };
    if let Some(k) = ws.iter().rposition(|w| side(w).is_some()) {
        let stem: String = ws
            .iter()
            .enumerate()
            .filter(|(i, _)| *i != k)
            .map(|(_, w)| w.as_str())
            .collect();
        return (side(&ws[k]), stem);
    }
    let l = name.to_lowercase();
    for (mark, left) in [("left", true), ("right", false)] {
        if let Some(i) = l.find(mark) {
            let stem = format!("{}{}", &l[..i], &l[i + mark.len()..]);
            return (
                Some(left),
                stem.chars().filter(|c| c.is_alphanumeric()).collect(),
            );
        }
    }
    (None, ws.concat())
}

/// The side a limb is on: by where its point is (`x`, body space: +X is left) when that is
/// clearly off the middle (more than `margin`), else by its bone's name, else left of the
/// middle. A name that says the other side (`FrontLeg.L.001` on the right) gives way.
pub(super) fn limb_side(x: f32, margin: f32, name: &str) -> bool {
    if x.abs() > margin {
        return x > 0.0;
    }
    side_of(name).0.unwrap_or(x >= 0.0)
}

/// Legs found named by side and order front to back, left before right at each rank
/// (`L1`, `R1`, `L2`, …); `at` takes scene space to body space.
pub(super) fn name_legs(model: &Model, legs: &mut [LegChain], at: &dyn Fn(Vec3) -> Vec3) {
    // Off the middle by more than a tenth of the widest tip's: the side it is on.
    let margin = 0.1
        * legs
            .iter()
            .map(|l| at(l.tip).x.abs())
            .fold(0.0f32, f32::max);
    let mut sided: Vec<(bool, f32, usize)> = legs
        .iter()
        .enumerate()
        .map(|(i, l)| {
            let left = limb_side(at(l.tip).x, margin, &model.joints[l.bones[0]].name);
            (left, -at(l.tip).z, i)
        })
        .collect();
    sided.sort_by(|a, b| {
        (!a.0, a.1)
            .partial_cmp(&(!b.0, b.1))
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    let mut counts = [0usize; 2];
    for (left, _, i) in sided {
        let k = usize::from(!left);
        counts[k] += 1;
        legs[i].name = format!("{}{}", if left { "L" } else { "R" }, counts[k]);
    }
    // Front to back, left before right at each rank (L1, R1, L2, R2 ...).
    let rank = |l: &LegChain| {
        (
            l.name[1..].parse::<usize>().unwrap_or(0),
            l.name.starts_with('R'),
        )
    };
    legs.sort_by_key(rank);
}

/// Arms found named by side (`arm_l1`, `arm_r1`, …).
pub(super) fn name_arms(model: &Model, arms: &mut [LegChain], at: &dyn Fn(Vec3) -> Vec3) {
    let mut n = [0usize; 2];
    let margin = 0.1
        * arms
            .iter()
            .map(|a| at(a.tip).x.abs())
            .fold(0.0f32, f32::max);
    for a in arms.iter_mut() {
        let left = limb_side(at(a.tip).x, margin, &model.joints[a.bones[0]].name);
        let k = usize::from(!left);
        n[k] += 1;
        a.name = format!("arm_{}{}", if left { "l" } else { "r" }, n[k]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn side_words_are_found_anywhere_in_a_name() {
        let cases = [
            ("Leg1Upper.L", Some(true), "leg1upper"),
            ("leg0FrontLeft", Some(true), "leg0front"),
            ("Foot IKBackRight", Some(false), "footikback"),
            ("front_left_leg", Some(true), "frontleg"),
            ("FrontLeg.L.001", Some(true), "frontleg001"),
            ("L_Thigh", Some(true), "thigh"),
            ("thigh_r", Some(false), "thigh"),
            ("RightUpLeg", Some(false), "upleg"),
            ("b_LeftLeg01_019", Some(true), "bleg01019"),
            ("upperleftleg", Some(true), "upperleg"),
            ("Spine", None, "spine"),
            ("Root", None, "root"),
            ("Leg3", None, "leg3"),
        ];
        for (name, side, stem) in cases {
            assert_eq!(side_of(name), (side, stem.to_string()), "{name}");
        }
    }
}
