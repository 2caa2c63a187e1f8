//! The egui overlay: frame and tick times, creature count, debug layer toggles, the
//! inspector of the selected creature (gait fields as live sliders, written through the same
//! validated per-instance override as `c.gait`, lean fields the same way as `c.lean`), the
//! lean plot of the selected creature, script and shader errors, and key help.

use crate::locomotion::tuning;
use crate::locomotion::{GaitParams, LeanDef};
use crate::render::gpu::FrameStats;
use crate::render::DebugFlags;
use crate::script::ScriptHost;
use crate::sim::{Command, CreatureId};

use super::view::View;

/// Something the overlay asked for, applied after the frame.
#[derive(Clone, Debug)]
pub(crate) enum Action {
    /// New gait for a creature (validated before it is sent).
    SetGait(CreatureId, Box<GaitParams>),
    /// New lean settings for a creature (validated before they are sent).
    SetLean(CreatureId, Box<LeanDef>),
    /// New debug layers.
    Debug(DebugFlags),
    /// Follow (or stop following).
    Follow(Option<CreatureId>),
    /// Stop a creature sent somewhere by hand.
    Stop(CreatureId),
    /// A command for the world (muscles, ragdoll, recover).
    Push(Command),
    /// Path edit mode on or off.
    ToggleEdit,
    /// A path editor command.
    Edit(crate::editor::EditCommand),
    /// The name typed for an inline path's file (`None`: the offer is dismissed).
    OfferName(Option<String>),
    /// Pause or run on.
    TogglePause,
    /// One tick (pausing first).
    Step,
    /// Run at this time scale.
    TimeScale(f64),
}

/// A short message after a hot reload (ok, or the error), shown for a few seconds.
#[derive(Clone, Debug)]
pub(crate) struct Toast {
    /// What happened ("spider reloaded in 14 ms", or the error).
    pub text: String,
    /// Whether the reload went in.
    pub ok: bool,
    /// When it happened.
    pub at: std::time::Instant,
}

impl Toast {
    /// How long a toast stays.
    pub(crate) const SHOWN: std::time::Duration = std::time::Duration::from_secs(4);
}

/// Draws the reload toasts, newest at the bottom, centred low on the screen.
pub(crate) fn toasts(ctx: &egui::Context, toasts: &[Toast]) {
    if toasts.is_empty() {
        return;
    }
    egui::Area::new(egui::Id::unique("reload-toasts"))
        .anchor(egui::Align2::CENTER_BOTTOM, [0.0, -16.0])
        .interactable(false)
        .show(ctx, |ui| {
            for t in toasts.iter().rev().take(4).rev() {
                let (fill, text) = if t.ok {
                    (egui::Color32::from_rgb(30, 90, 50), egui::Color32::WHITE)
                } else {
                    (egui::Color32::from_rgb(120, 35, 30), egui::Color32::WHITE)
                };
                egui::Frame::new()
                    .fill(fill)
                    .corner_radius(6.0)
                    .inner_margin(egui::Margin::symmetric(10, 6))
                    .show(ui, |ui| {
                        ui.set_max_width(560.0);
                        ui.colored_label(text, &t.text);
                    });
                ui.add_space(4.0);
            }
        });
}

/// The keys, as the help window lists them.
pub(crate) const HELP: &[(&str, &str)] = &[
    ("H", "show or hide this help"),
    ("M", "sound off / on (footfalls, lifts, thuds and scripts' sounds, heard at the camera)"),
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
    ("P", "pause / run on (hot reload, the inspector and the path editor work paused)"),
    (".", "one tick (pauses first)"),
    ("[ / ]", "slower / faster: x0.25, x0.5, x1, x2, x4 (the ticks are the same at any)"),
    ("`", "console: run Luau in the live world (Tab completes, Up/Down history, :help)"),
    ("O", "profiler: each mod's callbacks (units, ms, budget, memory) and the tick's phases"),
    ("1", "debug: foot targets"),
    ("2", "debug: ground casts"),
    ("3", "debug: planted (green) vs swinging (orange) feet"),
    ("4", "debug: fitted body plane"),
    ("5", "debug: paths and click destinations"),
    ("6", "debug: lean axes (leaned up cyan, unleaned grey)"),
    ("7", "debug: navmesh (teal), links (blue: the level's, green: found) and each agent's path (pink)"),
    (
        "K",
        "knock the selected creature over (a hit of 1.5x its threshold along the view)",
    ),
    (
        "Space",
        "lower every muscle (everyone goes limp); again to raise them (everyone gets up)",
    ),
    ("8", "debug: ragdoll joints, limits and muscle targets"),
    ("9", "debug: model skeletons (each bone to its parent, over the mesh)"),
    ("0", "debug: sticks (bodies and leg capsules instead of the models)"),
    (
        "U",
        "debug: climbers' surfaces (body up cyan, foot normals yellow)",
    ),
    ("R", "restart: rebuild the world from the mods"),
    (
        "E",
        "path edit mode: drag a path's points and handles (saved into the mod's paths/)",
    ),
    (
        "  drag",
        "a point (its handles follow) or a handle (the other mirrors it); Shift: up/down; Alt: break the tangent",
    ),
    ("  A", "add a point after the selected one (or at the end)"),
    ("  Delete", "remove the selected point"),
    ("  C", "open / close the selected path"),
    ("  Ctrl+Z", "undo (Ctrl+Shift+Z or Ctrl+Y: redo)"),
];

/// What the status panel reads out about the frame.
pub(crate) struct Readouts<'a> {
    /// Smoothed frame time, ms.
    pub(crate) frame_ms: f32,
    /// Smoothed tick time, ms.
    pub(crate) tick_ms: f32,
    /// Simulated seconds per real second (under the scale: ticks cost more than they stand
    /// for, and the world runs in slow motion; see `app::clock`).
    pub(crate) speed: f64,
    /// The time scale chosen, and whether the world is paused.
    pub(crate) scale: f64,
    pub(crate) paused: bool,
    /// The last frame's draw statistics.
    pub(crate) draw: FrameStats,
    /// The GPU adapter's name.
    pub(crate) adapter: &'a str,
    /// The sound's line (the device, or why silent; muted).
    pub(crate) sound: &'a str,
    /// A network server's line (where it listens, its viewers and their links).
    pub(crate) net: Option<&'a str>,
}

/// Draws the overlay; what the user changed comes back in `actions`.
#[allow(clippy::too_many_arguments)] // the window's state, each piece borrowed as it must be
pub(crate) fn overlay(
    ctx: &egui::Context,
    host: &ScriptHost,
    view: &View,
    readouts: &Readouts,
    errors: &mut Vec<String>,
    shader_error: Option<&str>,
    show_help: &mut bool,
    actions: &mut Vec<Action>,
) {
    egui::Window::new("skitter")
        .anchor(egui::Align2::LEFT_TOP, [8.0, 8.0])
        .resizable(false)
        .collapsible(true)
        .show(ctx, |ui| status_panel(ui, host, view, readouts, actions));
    if let Some(id) = view.selected {
        inspector(ctx, host, view, id, actions);
    }
    if view.selected.is_some() && !view.lean_history.samples.is_empty() {
        lean_plot(ctx, view);
    }
    errors_panel(ctx, errors, shader_error);
    help_window(ctx, show_help);
    if view.edit.on {
        edit_panel(ctx, host, view, actions);
    }
}

/// Path edit mode: the selection, the commands as buttons, what the editor said, and the
/// offer to move an inline path into a file.
fn edit_panel(ctx: &egui::Context, host: &ScriptHost, view: &View, actions: &mut Vec<Action>) {
    use crate::editor::EditCommand as E;
    let edit = &view.edit;
    egui::Window::new("path editor")
        .anchor(egui::Align2::CENTER_TOP, [0.0, 8.0])
        .resizable(false)
        .show(ctx, |ui| {
            let files = host.path_files();
            if files.is_empty() {
                ui.label("no path files loaded (path.load(\"NAME\") reads paths/NAME.toml)");
            }
            let sel = edit.selected.as_ref();
            ui.label(match sel {
                Some(g) => format!("selected: {} point {}", g.key, g.index + 1),
                None => "click a point or handle to select it; drag to move it".to_string(),
            });
            ui.horizontal(|ui| {
                if let Some(g) = sel {
                    if ui.button("add point (A)").clicked() {
                        actions.push(Action::Edit(E::AddPoint {
                            key: g.key.clone(),
                            after: Some(g.index),
                        }));
                    }
                    if ui.button("remove (Del)").clicked() {
                        actions.push(Action::Edit(E::RemovePoint {
                            key: g.key.clone(),
                            index: g.index,
                        }));
                    }
                    if ui.button("open/close (C)").clicked() {
                        actions.push(Action::Edit(E::ToggleClosed { key: g.key.clone() }));
                    }
                }
                let (u, r) = edit.editor.history();
                if ui.add_enabled(u > 0, egui::Button::new("undo")).clicked() {
                    actions.push(Action::Edit(E::Undo));
                }
                if ui.add_enabled(r > 0, egui::Button::new("redo")).clicked() {
                    actions.push(Action::Edit(E::Redo));
                }
                if ui.button("done (E)").clicked() {
                    actions.push(Action::ToggleEdit);
                }
            });
            for l in &edit.status {
                ui.label(egui::RichText::new(l).small());
            }
            if let Some(o) = &edit.offer {
                ui.separator();
                ui.label(format!(
                    "{} is written inline (path.bezier). Save it as a path file to edit it:",
                    o.source
                ));
                let mut name = o.name.clone();
                ui.horizontal(|ui| {
                    ui.label("paths/");
                    ui.text_edit_singleline(&mut name);
                    ui.label(".toml");
                });
                if name != o.name {
                    actions.push(Action::OfferName(Some(name.clone())));
                }
                ui.horizontal(|ui| {
                    if ui.button("save as path file").clicked() {
                        actions.push(Action::Edit(E::Extract {
                            source: o.source.clone(),
                            name: name.clone(),
                        }));
                    }
                    if ui.button("cancel").clicked() {
                        actions.push(Action::OfferName(None));
                    }
                });
            }
        });
}

/// Pause, one tick, and the time scale (`P`, `.`, `[`/`]`).
fn time_controls(ui: &mut egui::Ui, scale: f64, paused: bool, actions: &mut Vec<Action>) {
    ui.horizontal(|ui| {
        if ui
            .button(if paused { "run (P)" } else { "pause (P)" })
            .clicked()
        {
            actions.push(Action::TogglePause);
        }
        if ui.button("step (.)").clicked() {
            actions.push(Action::Step);
        }
        for s in super::clock::SCALES {
            let label = format!("x{s}");
            if ui
                .selectable_label((s - scale).abs() < 1e-9, label)
                .clicked()
            {
                actions.push(Action::TimeScale(s));
            }
        }
        if paused {
            ui.colored_label(egui::Color32::from_rgb(120, 200, 255), "paused");
        }
    });
}

/// Frame and tick times, counts, the adapter, mod badges, the debug layer toggles.
fn status_panel(
    ui: &mut egui::Ui,
    host: &ScriptHost,
    view: &View,
    readouts: &Readouts,
    actions: &mut Vec<Action>,
) {
    let Readouts {
        frame_ms,
        tick_ms,
        speed,
        scale,
        paused,
        draw,
        adapter,
        sound,
        net,
    } = *readouts;
    let world = host.world();
    ui.label(format!("frame {frame_ms:5.1} ms   tick {tick_ms:5.2} ms"));
    if let Some(n) = net {
        ui.label(n);
    }
    time_controls(ui, scale, paused, actions);
    if !paused && speed < 0.97 * scale {
        ui.colored_label(
            egui::Color32::from_rgb(240, 190, 60),
            format!(
                "slow motion: {:.0} % of real time (ticks cost more than they stand for)",
                speed * 100.0
            ),
        );
    }
    ui.label(format!(
        "creatures {}   draw calls {}   t = {:.1} s",
        world.creatures().len(),
        draw.draw_calls,
        world.time()
    ));
    if draw.per_lod.iter().any(|n| *n > 0) {
        let lods: Vec<String> = draw.per_lod.iter().map(u32::to_string).collect();
        ui.label(
            egui::RichText::new(format!(
                "models by level of detail {}   {:.1}k triangles",
                lods.join(" / "),
                draw.skinned_triangles as f64 / 1e3
            ))
            .small(),
        );
    }
    ui.label(egui::RichText::new(adapter).small().weak());
    ui.label(egui::RichText::new(sound).small().weak());
    // A badge per mod whose latest save failed: it runs its last good version.
    for (name, e) in host.broken_mods() {
        let running = host.loaded_mods().contains(name);
        ui.colored_label(
            egui::Color32::from_rgb(255, 170, 60),
            if running {
                format!("{name}: running last good version (latest save failed)")
            } else {
                format!("{name}: not running (its files have an error)")
            },
        )
        .on_hover_text(e.to_string());
    }
    for (name, why) in host.suspended_mods() {
        ui.colored_label(
            egui::Color32::from_rgb(255, 110, 100),
            format!("{name}: suspended (save a fix to reload it)"),
        )
        .on_hover_text(why);
    }
    if host.replaying() {
        ui.colored_label(
            egui::Color32::from_rgb(255, 200, 80),
            "REPLAY: inputs come from the record; clicks only select",
        );
    }
    let mut d = view.debug;
    ui.horizontal_wrapped(|ui| {
        ui.checkbox(&mut d.targets, "targets");
        ui.checkbox(&mut d.casts, "casts");
        ui.checkbox(&mut d.contacts, "contacts");
        ui.checkbox(&mut d.plane, "plane");
        ui.checkbox(&mut d.paths, "paths");
        ui.checkbox(&mut d.lean, "lean");
        ui.checkbox(&mut d.nav, "nav");
        ui.checkbox(&mut d.ragdoll, "ragdoll");
        ui.checkbox(&mut d.bones, "bones");
        ui.checkbox(&mut d.springs, "springs");
        ui.checkbox(&mut d.sticks, "sticks");
    });
    if d != view.debug {
        actions.push(Action::Debug(d));
    }
    ui.horizontal(|ui| {
        let label = if view.edit.on {
            "editing paths (E)"
        } else {
            "edit paths (E)"
        };
        if ui.selectable_label(view.edit.on, label).clicked() {
            actions.push(Action::ToggleEdit);
        }
        ui.label(egui::RichText::new("H: help").weak());
    });
}

/// The selected creature: where it is, its live gait and lean sliders, follow and stop.
fn inspector(
    ctx: &egui::Context,
    host: &ScriptHost,
    view: &View,
    id: crate::sim::CreatureId,
    actions: &mut Vec<Action>,
) {
    let world = host.world();
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
                // A loaded model: its file and each limb's bones.
                if let Some(m) = world
                    .creature_type(c.type_id)
                    .and_then(|t| t.model.as_ref())
                    .filter(|m| !m.generated)
                {
                    ui.collapsing(format!("model {}", m.model.source), |ui| {
                        let names = |bones: &[usize]| {
                            bones
                                .iter()
                                .map(|b| m.model.joints[*b].name.as_str())
                                .collect::<Vec<_>>()
                                .join(" > ")
                        };
                        ui.label(format!(
                            "{} joints, body \"{}\"",
                            m.model.joints.len(),
                            m.model.joints[m.binding.body].name
                        ));
                        for l in m.binding.legs.iter().chain(&m.binding.arms) {
                            ui.label(format!("{}: {}", l.name, names(&l.bones)));
                        }
                    });
                }
                if let Some(m) = world
                    .creature_type(c.type_id)
                    .and_then(|t| t.model.as_ref())
                {
                    spring_sliders(ui, c, m, actions);
                }
                ui.separator();
                ui.label("gait (this creature)");
                let legs = c.def.legs.len();
                let cur = world.pending_gait(id).unwrap_or(&c.gait);
                if let Some(g) = tuning_sliders(ui, tuning::GAIT, cur, legs.saturating_sub(1)) {
                    if g.validate(legs).is_ok() {
                        actions.push(Action::SetGait(id, Box::new(g)));
                    }
                }
                ui.separator();
                ui.label("lean (this creature)");
                let cur = world.pending_lean(id).unwrap_or(&c.lean);
                if let Some(l) = tuning_sliders(ui, tuning::LEAN, cur, 0) {
                    if l.validate().is_ok() {
                        actions.push(Action::SetLean(id, Box::new(l)));
                    }
                }
                if !c.def.legs.is_empty() {
                    ui.separator();
                    muscle_sliders(ui, c, actions);
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

/// The selected creature's spring chains (stiffness, damping, gravity, drag) and its spine's
/// shares of the lean, each a slider: this creature's own (`Command::Tune`), from its type's.
fn spring_sliders(
    ui: &mut egui::Ui,
    c: &crate::sim::Creature,
    m: &crate::model::BoundModel,
    actions: &mut Vec<Action>,
) {
    use crate::sim::springs::Tune;
    let tuned = c.tuned.as_deref();
    if !m.springs.is_empty() {
        ui.collapsing(format!("spring chains ({})", m.springs.len()), |ui| {
            for (i, chain) in m.springs.iter().enumerate() {
                let cur = tuned
                    .and_then(|t| t.springs.get(i))
                    .copied()
                    .unwrap_or(chain.params);
                let mut p = cur;
                ui.label(&chain.name);
                ui.add(
                    egui::Slider::new(&mut p.stiffness, 1.0..=2000.0)
                        .logarithmic(true)
                        .text("stiffness"),
                );
                ui.add(egui::Slider::new(&mut p.damping, 0.0..=100.0).text("damping"));
                ui.add(egui::Slider::new(&mut p.gravity, -2.0..=2.0).text("gravity"));
                ui.add(egui::Slider::new(&mut p.drag, 0.0..=10.0).text("drag"));
                if p != cur {
                    actions.push(Action::Push(Command::Tune(
                        c.id,
                        Box::new(Tune::Spring(i, p)),
                    )));
                }
            }
        });
    }
    if !m.spine.joints.is_empty() {
        ui.collapsing("spine (share of the lean)", |ui| {
            let cur: Vec<f32> = tuned
                .and_then(|t| t.spine.clone())
                .unwrap_or_else(|| m.spine.weights.clone());
            let mut w = cur.clone();
            for (j, share) in m.spine.joints.iter().zip(w.iter_mut()) {
                let name = m.model.joints[*j].name.as_str();
                ui.add(egui::Slider::new(share, 0.0..=1.0).text(name));
            }
            if w != cur && w.iter().sum::<f32>() > 0.0 {
                actions.push(Action::Push(Command::Tune(c.id, Box::new(Tune::Spine(w)))));
            }
        });
    }
}

/// The selected creature's physics: its state, live muscle strength and this creature's
/// stiffness and damping (multipliers on its type's), and ragdoll / recover buttons.
fn muscle_sliders(ui: &mut egui::Ui, c: &crate::sim::Creature, actions: &mut Vec<Action>) {
    let id = c.id;
    ui.label(format!("physics: {}", c.ragdoll_state()));
    let Some(rag) = c.rag.as_ref() else {
        if ui.button("ragdoll (limp)").clicked() {
            actions.push(Action::Push(Command::Ragdoll(id, Default::default())));
        }
        return;
    };
    let mut m = rag.muscle;
    if ui
        .add(egui::Slider::new(&mut m, 0.0..=1.0).text("muscle strength"))
        .changed()
    {
        actions.push(Action::Push(Command::SetMuscle(id, m)));
    }
    let mut g = rag.gains;
    let k = ui.add(egui::Slider::new(&mut g[0], 0.1..=4.0).text("stiffness x"));
    let d = ui.add(egui::Slider::new(&mut g[1], 0.1..=4.0).text("damping x"));
    if k.changed() || d.changed() {
        actions.push(Action::Push(Command::SetMuscleGains(id, g)));
    }
    if ui.button("recover").clicked() {
        actions.push(Action::Push(Command::Recover(id)));
    }
}

/// Script and shader errors, with a button to clear the script ones.
fn errors_panel(ctx: &egui::Context, errors: &mut Vec<String>, shader_error: Option<&str>) {
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
}

/// The key list (`H`).
fn help_window(ctx: &egui::Context, show_help: &mut bool) {
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

/// The lean panel: target and current roll and pitch, and the filtered yaw rate, on one
/// time axis (the last few seconds of the selected creature).
fn lean_plot(ctx: &egui::Context, view: &View) {
    use egui_plot::{Legend, Line, LineStyle, Plot, PlotPoints};
    let h = &view.lean_history;
    let now = h.samples.back().map(|s| s.t).unwrap_or(0.0);
    let series = |f: fn(&super::view::LeanSample) -> f32| -> PlotPoints<'static> {
        h.samples
            .iter()
            .map(|s| [s.t - now, f(s) as f64])
            .collect::<Vec<_>>()
            .into()
    };
    let link = egui::Id::unique("lean-time");
    let span = super::view::LeanHistory::SECONDS;
    egui::Window::new("lean")
        .anchor(egui::Align2::RIGHT_BOTTOM, [-8.0, -8.0])
        .default_width(420.0)
        .show(ctx, |ui| {
            Plot::new("lean-deg")
                .height(150.0)
                .legend(Legend::default().position(egui_plot::Corner::LeftTop))
                .link_axis(link, [true, false])
                .include_x(-span)
                .include_x(0.0)
                .include_y(-5.0)
                .include_y(5.0)
                .y_axis_label("degrees")
                .allow_drag(false)
                .allow_zoom(false)
                .show(ui, |p| {
                    let roll = egui::Color32::from_rgb(90, 200, 255);
                    let pitch = egui::Color32::from_rgb(255, 170, 80);
                    p.line(
                        Line::new("target roll", series(|s| s.target_roll))
                            .color(roll)
                            .style(LineStyle::dashed_loose()),
                    );
                    p.line(Line::new("roll", series(|s| s.roll)).color(roll).width(2.0));
                    p.line(
                        Line::new("target pitch", series(|s| s.target_pitch))
                            .color(pitch)
                            .style(LineStyle::dashed_loose()),
                    );
                    p.line(
                        Line::new("pitch", series(|s| s.pitch))
                            .color(pitch)
                            .width(2.0),
                    );
                });
            Plot::new("lean-yaw-rate")
                .height(90.0)
                .legend(Legend::default().position(egui_plot::Corner::LeftTop))
                .link_axis(link, [true, false])
                .include_x(-span)
                .include_x(0.0)
                .include_y(-30.0)
                .include_y(30.0)
                .x_axis_label("seconds")
                .y_axis_label("deg/s")
                .allow_drag(false)
                .allow_zoom(false)
                .show(ui, |p| {
                    p.line(
                        Line::new("yaw rate (filtered)", series(|s| s.yaw_rate))
                            .color(egui::Color32::from_rgb(160, 255, 140)),
                    );
                });
        });
}

/// Applies an overlay action.
pub(crate) fn apply(
    a: Action,
    host: &mut ScriptHost,
    view: &mut View,
    clock: &mut super::clock::Clock,
) {
    match a {
        Action::TogglePause => clock.toggle_pause(),
        Action::Step => clock.step_once(),
        Action::TimeScale(s) => clock.set_scale(s),
        Action::SetGait(id, g) => host.world_mut().push(Command::SetGait(id, g)),
        Action::SetLean(id, l) => host.world_mut().push(Command::SetLean(id, l)),
        Action::Debug(d) => view.debug = d,
        Action::Follow(f) => view.follow = f,
        Action::Stop(id) => super::window::stop(host, id),
        Action::Push(c) => host.world_mut().push(c),
        Action::ToggleEdit => super::path_edit::toggle(&mut view.edit, host),
        Action::Edit(cmd) => {
            let extract = matches!(cmd, crate::editor::EditCommand::Extract { .. });
            view.edit.run(host, cmd);
            if extract {
                view.edit.offer = None;
            }
        }
        Action::OfferName(name) => match (name, view.edit.offer.as_mut()) {
            (Some(n), Some(o)) => o.name = n,
            _ => view.edit.offer = None,
        },
    }
}

/// A slider per tunable field that has an inspector range (whole numbers: 0..=`max_count`,
/// shown when that is above 0). Returns the edited value when a slider moved.
fn tuning_sliders<T: Clone + PartialEq>(
    ui: &mut egui::Ui,
    fields: &[tuning::Field<T>],
    current: &T,
    max_count: usize,
) -> Option<T> {
    let mut value = current.clone();
    for f in fields {
        match (f.slot)(&mut value) {
            tuning::FieldMut::Num(x) => {
                if let Some((lo, hi)) = f.slider {
                    ui.add(egui::Slider::new(x, lo..=hi).text(f.name));
                }
            }
            tuning::FieldMut::Count(n) if max_count > 0 => {
                ui.add(egui::Slider::new(n, 0..=max_count).text(f.name));
            }
            _ => {}
        }
    }
    (value != *current).then_some(value)
}
