//! A network viewer's pictures: `skitter join --screenshot` draws the world a viewer
//! shows, offscreen, as `skitter run --screenshot` draws a run's.

use std::path::Path;

use glam::Vec3;

use super::screenshot::ShotReport;
use super::view::View;
use crate::net::NetViewer;
use crate::render::offscreen::{write_png, Offscreen};
use crate::render::DebugFlags;

/// The `net` debug layer: each body's latest snapshot (a yellow cross) and a line to it from
/// where the body is drawn (the buffer's delay, seen).
pub(crate) fn net_lines(view: &mut View, viewer: &NetViewer) {
    let world = viewer.world();
    let mut segs = Vec::new();
    for (id, at) in viewer.latest_positions() {
        let Some(c) = world.creature(id) else {
            continue;
        };
        let (drawn, _) = c.body_pose();
        let r = 0.12;
        segs.push((at - Vec3::X * r, at + Vec3::X * r));
        segs.push((at - Vec3::Z * r, at + Vec3::Z * r));
        segs.push((at - Vec3::Y * r, at + Vec3::Y * r));
        segs.push((drawn, at));
    }
    view.frame.add_lines(segs, [1.0, 0.9, 0.1, 1.0]);
}

/// Draws what `viewer` shows now into a PNG of `size`.
pub fn shoot_viewer(
    viewer: &NetViewer,
    size: (u32, u32),
    debug: DebugFlags,
    out: &Path,
) -> anyhow::Result<ShotReport> {
    let world = viewer.world();
    let mut view = View::new(world);
    view.debug = debug;
    view.after_tick(world);
    view.prepare_world(1.0, 1.0 / 60.0, world, &[]);
    if debug.net {
        net_lines(&mut view, viewer);
    }
    let mut shot = Offscreen::new(size.0, size.1, &super::scene_shader())?;
    shot.renderer.set_models(world.types());
    shot.draw(
        world.level(),
        world.level_version(),
        &view.frame,
        &view.camera,
        world.time() as f32,
    );
    let rgba = shot.read()?;
    write_png(out, size.0, size.1, &rgba)?;
    Ok(ShotReport {
        adapter: shot.adapter_name.clone(),
        creatures: world.creatures().len(),
        stats: shot.renderer.stats,
        ..ShotReport::default()
    })
}
