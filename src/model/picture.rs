//! `skitter check --picture FILE.png`: each model type's bind pose drawn from the front, the
//! side and the top, every bone coloured by what the binder made of it — each leg its own
//! colour (left warm, right cool), arms green, the head yellow, the body white, free chains
//! (tails, ears, antennae, wings) brown, helpers (IK targets, end markers, foot joints hung
//! elsewhere) magenta, bones that ride along grey — with the limbs named at their ends and
//! a legend of every chain's bones. Drawn on the CPU: no GPU needed.

use std::path::Path;

use ab_glyph::{Font as _, FontRef, PxScale, ScaleFont as _};
use glam::Vec3;
use tiny_skia::{Color, Paint, PathBuilder, Pixmap, Stroke, Transform};

use super::bind::LegChain;
use super::BoundModel;

/// One panel's side, pixels.
const PANEL: u32 = 380;
/// A legend line's height, pixels.
const LINE: u32 = 16;
/// The labels' size, pixels.
const TEXT: f32 = 13.0;
/// Most mesh vertices drawn as dots (a dense mesh is thinned evenly).
const MAX_DOTS: usize = 30_000;

/// What the binder made of a bone, for its colour.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Class {
    /// The k-th leg, on the left (`true`) or right.
    Leg(usize, bool),
    /// An arm (a flyer's dangling legs too).
    Arm,
    /// The head bone and what hangs from it unbound.
    Head,
    /// The body bone.
    Body,
    /// A chain nothing drives: a tail, an ear, an antenna, a wing.
    Free,
    /// No vertices and no limb: an IK or pole target, an end marker, a control.
    Helper,
    /// Any other bone: it rides along with its parent.
    Rides,
}

/// The colour of a class (RGB).
fn colour(c: Class) -> [u8; 3] {
    const WARM: [[u8; 3]; 5] = [
        [235, 64, 52],
        [245, 150, 40],
        [230, 200, 40],
        [240, 100, 150],
        [200, 90, 60],
    ];
    const COOL: [[u8; 3]; 5] = [
        [50, 120, 240],
        [40, 200, 220],
        [40, 180, 140],
        [150, 110, 240],
        [90, 150, 200],
    ];
    match c {
        Class::Leg(k, true) => WARM[k % WARM.len()],
        Class::Leg(k, false) => COOL[k % COOL.len()],
        Class::Arm => [80, 200, 80],
        Class::Head => [250, 230, 90],
        Class::Body => [255, 255, 255],
        Class::Free => [170, 120, 70],
        Class::Helper => [230, 60, 230],
        Class::Rides => [120, 120, 130],
    }
}

/// Each joint's class in `m`'s binding.
fn classes(m: &BoundModel) -> Vec<Class> {
    let model = &m.model;
    let b = &m.binding;
    let n = model.joints.len();
    let mut out = vec![Class::Rides; n];
    let mut left_rank = 0;
    let mut right_rank = 0;
    for l in &b.legs {
        let left = l.name.starts_with('L');
        let k = if left {
            &mut left_rank
        } else {
            &mut right_rank
        };
        for j in &l.bones {
            out[*j] = Class::Leg(*k, left);
        }
        if let Some(f) = l.follower {
            out[f] = Class::Helper;
        }
        *k += 1;
    }
    for a in &b.arms {
        for j in &a.bones {
            out[*j] = Class::Arm;
        }
    }
    let in_limb = |j: usize| {
        b.legs
            .iter()
            .chain(&b.arms)
            .any(|l| l.bones.contains(&j) || l.follower == Some(j))
    };
    for (j, joint) in model.joints.iter().enumerate() {
        if in_limb(j) {
            continue;
        }
        let carries_limb = b
            .legs
            .iter()
            .chain(&b.arms)
            .any(|l| model.below(l.bones[0], j));
        out[j] = if j == b.body {
            Class::Body
        } else if b.head.is_some_and(|h| j == h || model.below(j, h)) {
            Class::Head
        } else if joint.reach == 0.0 && joint.children.is_empty() && !carries_limb {
            Class::Helper
        } else if model.not_a_limb(j) && !carries_limb {
            Class::Free
        } else {
            Class::Rides
        };
    }
    out
}

/// A view: body-space point to the panel's plane (right, up), and its name.
struct View {
    name: &'static str,
    flat: fn(Vec3) -> (f32, f32),
}

const VIEWS: [View; 3] = [
    // Facing the creature: its left (+X) on the picture's right.
    View {
        name: "front",
        flat: |p| (p.x, p.y),
    },
    // From its left side: its front to the right.
    View {
        name: "side (front to the right)",
        flat: |p| (p.z, p.y),
    },
    // From above, its front up: its left on the picture's left.
    View {
        name: "top (front up)",
        flat: |p| (-p.x, p.z),
    },
];

/// A canvas: the pixmap and the font.
struct Canvas {
    pix: Pixmap,
    font: FontRef<'static>,
}

impl Canvas {
    fn paint(rgb: [u8; 3], alpha: u8) -> Paint<'static> {
        let mut p = Paint::default();
        p.set_color(Color::from_rgba8(rgb[0], rgb[1], rgb[2], alpha));
        p.anti_alias = true;
        p
    }

    fn line(&mut self, a: (f32, f32), b: (f32, f32), rgb: [u8; 3], width: f32) {
        let mut pb = PathBuilder::new();
        pb.move_to(a.0, a.1);
        pb.line_to(b.0, b.1);
        if let Some(path) = pb.finish() {
            let stroke = Stroke {
                width,
                ..Stroke::default()
            };
            self.pix.stroke_path(
                &path,
                &Self::paint(rgb, 255),
                &stroke,
                Transform::identity(),
                None,
            );
        }
    }

    fn dot(&mut self, at: (f32, f32), r: f32, rgb: [u8; 3], alpha: u8) {
        if let Some(path) = PathBuilder::from_circle(at.0, at.1, r) {
            self.pix.fill_path(
                &path,
                &Self::paint(rgb, alpha),
                tiny_skia::FillRule::Winding,
                Transform::identity(),
                None,
            );
        }
    }

    /// `text` with its top-left at `at`, in `rgb`; returns where it ends (x).
    fn text(&mut self, at: (f32, f32), text: &str, rgb: [u8; 3]) -> f32 {
        let scale = PxScale::from(TEXT);
        let scaled = self.font.as_scaled(scale);
        let (w, h) = (self.pix.width() as i32, self.pix.height() as i32);
        let mut x = at.0;
        for ch in text.chars() {
            let id = self.font.glyph_id(ch);
            let glyph =
                id.with_scale_and_position(scale, ab_glyph::point(x, at.1 + scaled.ascent()));
            x += scaled.h_advance(id);
            let Some(outline) = self.font.outline_glyph(glyph) else {
                continue;
            };
            let bounds = outline.px_bounds();
            let data = self.pix.data_mut();
            outline.draw(|gx, gy, cov| {
                let (px, py) = (
                    bounds.min.x as i32 + gx as i32,
                    bounds.min.y as i32 + gy as i32,
                );
                if px < 0 || py < 0 || px >= w || py >= h {
                    return;
                }
                let i = 4 * (py * w + px) as usize;
                let a = cov.clamp(0.0, 1.0);
                for c in 0..3 {
                    let under = f32::from(data[i + c]);
                    data[i + c] = (under + (f32::from(rgb[c]) - under) * a).round() as u8;
                }
            });
        }
        x
    }
}

/// The chains `m` leaves free (tails, ears, antennae, wings): `(first bone, last bone)`.
fn free_chain_ends(m: &BoundModel, class: &[Class]) -> Vec<(usize, usize)> {
    m.model
        .free_chains()
        .into_iter()
        .filter(|(b, _)| b.iter().all(|j| class[*j] == Class::Free))
        .map(|(b, _)| (b[0], b[b.len() - 1]))
        .collect()
}

/// What the legend says of a limb: `L1 = hip.L > knee.L > ankle.L`.
fn limb_line(m: &BoundModel, l: &LegChain) -> String {
    let bones: Vec<&str> = l
        .bones
        .iter()
        .map(|b| m.model.joints[*b].name.as_str())
        .collect();
    let follow = l
        .follower
        .map(|f| format!(" (tip on \"{}\")", m.model.joints[f].name))
        .unwrap_or_default();
    format!("{} = {}{follow}", l.name, bones.join(" > "))
}

/// Draws type `name`'s model `m` as one row (three panels and its legend) at `top`.
fn draw_row(cv: &mut Canvas, top: u32, name: &str, m: &BoundModel, class: &[Class]) {
    let model = &m.model;
    let fix = m.binding.fix;
    let at = |p: Vec3| fix.transform_point3(p);
    let heads: Vec<Vec3> = model.joints.iter().map(|j| at(j.head())).collect();
    let ends: Vec<Vec3> = model.joints.iter().map(|j| at(j.far)).collect();
    let mut verts: Vec<Vec3> = model
        .primitives
        .iter()
        .flat_map(|p| p.positions.iter().map(|v| at(Vec3::from(*v))))
        .collect();
    let step = verts.len().div_ceil(MAX_DOTS).max(1);
    verts = verts.into_iter().step_by(step).collect();
    let ground = -m.plan.hover.unwrap_or(m.plan.height);
    // One scale for the three panels: the whole model and its ground fit each.
    let (lo, hi) = verts.iter().chain(&heads).chain(&ends).fold(
        (Vec3::splat(f32::MAX), Vec3::splat(f32::MIN)),
        |(a, b), p| (a.min(*p), b.max(*p)),
    );
    let (lo, hi) = (
        lo.min(Vec3::new(lo.x, ground, lo.z)),
        hi.max(Vec3::new(hi.x, ground, hi.z)),
    );
    let span = (hi - lo).max_element().max(1e-3);
    let px = (PANEL as f32 - 50.0) / span;
    let mid = 0.5 * (lo + hi);
    let label_top = top as f32 + 4.0;
    let stands = match m.plan.hover {
        Some(h) => format!("a flyer, hovering {h:.2} m up"),
        None => format!("ride height {:.2} m", m.plan.height),
    };
    cv.text(
        (6.0, label_top),
        &format!("{name}: {} — {stands}", model.source),
        [240, 240, 240],
    );
    for (k, view) in VIEWS.iter().enumerate() {
        let (cx, cy) = (
            k as f32 * PANEL as f32 + PANEL as f32 / 2.0,
            top as f32 + 22.0 + PANEL as f32 / 2.0,
        );
        let (mu, mv) = (view.flat)(mid);
        let to = |p: Vec3| {
            let (u, v) = (view.flat)(p);
            (cx + (u - mu) * px, cy - (v - mv) * px)
        };
        cv.text(
            (k as f32 * PANEL as f32 + 8.0, top as f32 + 22.0),
            view.name,
            [170, 170, 180],
        );
        if k < 2 {
            let (a, b) = (
                to(Vec3::new(lo.x, ground, lo.z)),
                to(Vec3::new(hi.x, ground, hi.z)),
            );
            cv.line((a.0 - 12.0, a.1), (b.0 + 12.0, b.1), [90, 110, 90], 1.5);
        }
        for v in &verts {
            cv.dot(to(*v), 0.9, [200, 200, 205], 60);
        }
        draw_bones(cv, class, model, &heads, &ends, &to);
        draw_names(cv, m, class, &heads, &ends, &to);
    }
    draw_legend(cv, m, class, top + 22 + PANEL);
}

/// Each bone as a line from its head to each child's (a chain's end to where its vertices
/// reach), coloured by class; joints as dots.
fn draw_bones(
    cv: &mut Canvas,
    class: &[Class],
    model: &super::Model,
    heads: &[Vec3],
    ends: &[Vec3],
    to: &dyn Fn(Vec3) -> (f32, f32),
) {
    // Riding bones first, the limbs over them.
    let mut order: Vec<usize> = (0..model.joints.len()).collect();
    order.sort_by_key(|j| class[*j] != Class::Rides);
    for j in order {
        let joint = &model.joints[j];
        let rgb = colour(class[j]);
        let width = if class[j] == Class::Rides { 1.0 } else { 2.5 };
        for c in &joint.children {
            cv.line(to(heads[j]), to(heads[*c]), rgb, width);
        }
        if joint.children.is_empty() && joint.reach > 0.0 {
            cv.line(to(heads[j]), to(ends[j]), rgb, width);
        }
        let r = if class[j] == Class::Helper { 3.5 } else { 2.2 };
        cv.dot(to(heads[j]), r, rgb, 255);
    }
}

/// The limbs' names at their ends; the head's and the body's at their bones.
fn draw_names(
    cv: &mut Canvas,
    m: &BoundModel,
    class: &[Class],
    heads: &[Vec3],
    ends: &[Vec3],
    to: &dyn Fn(Vec3) -> (f32, f32),
) {
    let fix = m.binding.fix;
    for l in m.binding.legs.iter().chain(&m.binding.arms) {
        let j = l.bones[l.bones.len() - 1];
        let p = to(fix.transform_point3(l.tip));
        cv.text((p.0 + 4.0, p.1 - 6.0), &l.name, colour(class[j]));
    }
    let b = m.binding.body;
    let p = to(heads[b]);
    cv.text((p.0 + 4.0, p.1 - 14.0), "body", colour(Class::Body));
    if let Some(h) = m.binding.head {
        let p = to(ends[h]);
        cv.text((p.0 + 4.0, p.1 - 14.0), "head", colour(Class::Head));
    }
}

/// The legend under a row: each limb's bones in its colour, then the free chains and the
/// helpers.
fn draw_legend(cv: &mut Canvas, m: &BoundModel, class: &[Class], top: u32) {
    let mut y = top as f32 + 4.0;
    // Text a shade lighter than the lines it names: easier on the dark ground.
    let mut line = |cv: &mut Canvas, text: &str, rgb: [u8; 3]| {
        cv.text((10.0, y), text, rgb.map(|c| c + (255 - c) / 3));
        y += LINE as f32;
    };
    for l in m.binding.legs.iter().chain(&m.binding.arms) {
        let j = l.bones[l.bones.len() - 1];
        line(cv, &limb_line(m, l), colour(class[j]));
    }
    let names = |js: Vec<usize>| {
        js.iter()
            .map(|j| m.model.joints[*j].name.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let free: Vec<usize> = free_chain_ends(m, class).into_iter().map(|c| c.0).collect();
    if !free.is_empty() {
        line(
            cv,
            &format!("free chains (ride along): {}", names(free)),
            colour(Class::Free),
        );
    }
    let helpers: Vec<usize> = (0..class.len())
        .filter(|j| class[*j] == Class::Helper)
        .collect();
    if !helpers.is_empty() {
        line(
            cv,
            &format!("helpers: {}", names(helpers)),
            colour(Class::Helper),
        );
    }
}

/// How many legend lines a row needs.
fn legend_lines(m: &BoundModel, class: &[Class]) -> u32 {
    let limbs = m.binding.legs.len() + m.binding.arms.len();
    let free = usize::from(!free_chain_ends(m, class).is_empty());
    let helpers = usize::from(class.contains(&Class::Helper));
    (limbs + free + helpers) as u32
}

/// Draws `types` (name, model) one row each — front, side and top — and writes the PNG to
/// `out`.
pub fn picture(types: &[(String, &BoundModel)], out: &Path) -> Result<(), String> {
    if types.is_empty() {
        return Err("--picture: no type with a model file to draw".into());
    }
    let class: Vec<Vec<Class>> = types.iter().map(|(_, m)| classes(m)).collect();
    let rows: Vec<u32> = types
        .iter()
        .zip(&class)
        .map(|((_, m), c)| 22 + PANEL + 8 + LINE * legend_lines(m, c) + 12)
        .collect();
    let height = rows.iter().sum::<u32>();
    let width = PANEL * 3;
    let mut pix = Pixmap::new(width, height)
        .ok_or_else(|| format!("--picture: {width}x{height} is too big"))?;
    pix.fill(Color::from_rgba8(28, 30, 36, 255));
    let font = FontRef::try_from_slice(epaint_default_fonts::HACK_REGULAR)
        .map_err(|e| format!("--picture: the font: {e}"))?;
    let mut cv = Canvas { pix, font };
    let mut top = 0;
    for (((name, m), h), c) in types.iter().zip(&rows).zip(&class) {
        draw_row(&mut cv, top, name, m, c);
        top += h;
    }
    let file = std::fs::File::create(out).map_err(|e| format!("{}: {e}", out.display()))?;
    let mut enc = png::Encoder::new(std::io::BufWriter::new(file), width, height);
    enc.set_color(png::ColorType::Rgba);
    enc.set_depth(png::BitDepth::Eight);
    enc.write_header()
        .and_then(|mut w| w.write_image_data(cv.pix.data()))
        .map_err(|e| format!("{}: {e}", out.display()))
}
