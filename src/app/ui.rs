//! The egui overlay: frame and tick times, creature count, debug layer toggles, the
//! inspector of the selected creature (gait fields as live sliders, written through the same
//! validated per-instance override as `c.gait`), script and shader errors, and key help.

use crate::locomotion::GaitParams;
use crate::render::gpu::FrameStats;
use crate::render::DebugFlags;
use crate::script::ScriptHost;
use crate::sim::{Command, CreatureId};

use super::view::View;

/// Something the overlay asked for, applied after the frame.
#[derive(Clone, Debug)]
pub enum Action {
    /// New gait for a creature (validated before it is sent).
    SetGait(CreatureId, Box<GaitParams>),
    /// New debug layers.
    Debug(DebugFlags),
    /// Follow (or stop following).
    Follow(Option<CreatureId>),
    /// Stop a creature sent somewhere by hand.
    Stop(CreatureId),
}

/// The keys, as the help window lists them.
pub const HELP: &[(&str, &str)] = &[
    ("H", "show or hide this help"),
    (
        "left click",
        "select a creature; with one selected, click the ground to send it there",
    ),
    ("right drag", "orbit the camera"),
    ("middle drag", "pan"),
    ("wheel", "zoom"),
    ("F", "follow the selected creature (again to stop)"),
    ("Home", "reset the camera"),
    ("Esc", "deselect"),
    ("1", "debug: foot targets"),
    ("2", "debug: ground casts"),
    ("3", "debug: planted (green) vs swinging (orange) feet"),
    ("4", "debug: fitted body plane"),
    ("5", "debug: paths and click destinations"),
    ("R", "restart: rebuild the world from the mods"),
];

/// Draws the overlay; what the user changed comes back in `actions`.
#[allow(clippy::too_many_arguments)]
pub fn overlay(
    ctx: &egui::Context,
    host: &ScriptHost,
    view: &View,
    frame_ms: f32,
    tick_ms: f32,
    draw: FrameStats,
    adapter: &str,
    errors: &mut Vec<String>,
    shader_error: Option<&str>,
    show_help: &mut bool,
    actions: &mut Vec<Action>,
) {
    let world = host.world();
    egui::Window::new("skitter")
        .anchor(egui::Align2::LEFT_TOP, [8.0, 8.0])
        .resizable(false)
        .collapsible(true)
        .show(ctx, |ui| {
            ui.label(format!("frame {frame_ms:5.1} ms   tick {tick_ms:5.2} ms"));
            ui.label(format!(
                "creatures {}   draw calls {}   t = {:.1} s",
                world.creatures().len(),
                draw.draw_calls,
                world.time()
            ));
            ui.label(egui::RichText::new(adapter).small().weak());
            let mut d = view.debug;
            ui.horizontal_wrapped(|ui| {
                ui.checkbox(&mut d.targets, "targets");
                ui.checkbox(&mut d.casts, "casts");
                ui.checkbox(&mut d.contacts, "contacts");
                ui.checkbox(&mut d.plane, "plane");
                ui.checkbox(&mut d.paths, "paths");
            });
            if d != view.debug {
                actions.push(Action::Debug(d));
            }
            ui.label(egui::RichText::new("H: help").weak());
        });

    if let Some(id) = view.selected {
        if let Some(c) = world.creature(id) {
            let type_name = world
                .creature_type(c.type_id)
                .map(|t| t.name.clone())
                .unwrap_or_default();
            egui::Window::new("inspector")
                .anchor(egui::Align2::RIGHT_TOP, [-8.0, 8.0])
                .resizable(false)
                .show(ctx, |ui| {
                    ui.heading(format!("#{} {type_name}", id.0));
                    let p = c.loco.position;
                    ui.label(format!("position ({:.2}, {:.2}, {:.2})", p.x, p.y, p.z));
                    let grounded = c.loco.legs.iter().filter(|l| l.grounded).count();
                    ui.label(format!(
                        "speed {:.2} m/s   feet down {grounded}/{}",
                        c.loco.speed(),
                        c.loco.legs.len()
                    ));
                    ui.separator();
                    ui.label("gait (this creature)");
                    let cur = world
                        .pending_gait(id)
                        .cloned()
                        .unwrap_or_else(|| c.gait.clone());
                    let mut g = cur.clone();
                    ui.add(egui::Slider::new(&mut g.step_trigger, 0.05..=1.0).text("step_trigger"));
                    ui.add(
                        egui::Slider::new(&mut g.step_duration, 0.05..=1.0).text("step_duration"),
                    );
                    ui.add(egui::Slider::new(&mut g.step_height, 0.01..=0.5).text("step_height"));
                    ui.add(egui::Slider::new(&mut g.lead, 0.0..=2.0).text("lead"));
                    let legs = c.def.legs.len();
                    if legs > 1 {
                        ui.add(
                            egui::Slider::new(&mut g.min_grounded, 0..=legs - 1)
                                .text("min_grounded"),
                        );
                    }
                    if g != cur && g.validate(legs).is_ok() {
                        actions.push(Action::SetGait(id, Box::new(g)));
                    }
                    ui.horizontal(|ui| {
                        let following = view.follow == Some(id);
                        if ui.selectable_label(following, "follow (F)").clicked() {
                            actions.push(Action::Follow(if following { None } else { Some(id) }));
                        }
                        if host.destinations().iter().any(|(d, _)| *d == id)
                            && ui.button("stop").clicked()
                        {
                            actions.push(Action::Stop(id));
                        }
                    });
                });
        }
    }

    if !errors.is_empty() || shader_error.is_some() {
        egui::Window::new("errors")
            .anchor(egui::Align2::LEFT_BOTTOM, [8.0, -8.0])
            .default_width(560.0)
            .show(ctx, |ui| {
                if let Some(e) = shader_error {
                    ui.colored_label(
                        egui::Color32::from_rgb(255, 170, 60),
                        format!("shader (last good version running):\n{e}"),
                    );
                }
                egui::ScrollArea::vertical()
                    .max_height(160.0)
                    .show(ui, |ui| {
                        for e in errors.iter() {
                            ui.colored_label(egui::Color32::from_rgb(255, 110, 100), e);
                        }
                    });
                if !errors.is_empty() && ui.button("clear").clicked() {
                    errors.clear();
                }
            });
    }

    if *show_help {
        egui::Window::new("help")
            .anchor(egui::Align2::CENTER_CENTER, [0.0, 0.0])
            .resizable(false)
            .open(show_help)
            .show(ctx, |ui| {
                egui::Grid::new("keys").striped(true).show(ui, |ui| {
                    for (k, what) in HELP {
                        ui.strong(*k);
                        ui.label(*what);
                        ui.end_row();
                    }
                });
            });
    }
}

/// Applies an overlay action.
pub fn apply(a: Action, host: &mut ScriptHost, view: &mut View) {
    match a {
        Action::SetGait(id, g) => host.world_mut().push(Command::SetGait(id, g)),
        Action::Debug(d) => view.debug = d,
        Action::Follow(f) => view.follow = f,
        Action::Stop(id) => super::window::stop(host, id),
    }
}
