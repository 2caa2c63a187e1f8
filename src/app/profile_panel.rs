//! The profiler panel (`O`): the world's tick as a flame-style view (each phase a bar as
//! wide as its share of the tick, what it is made of under it; the window's frame beside),
//! and per mod, per callback kind and behaviour, work units and milliseconds per tick
//! (mean, p95, worst over the last 5 s), share of the budget and memory, the costliest first.

use crate::script::profile::{PhaseFigures, ProfileReport, Stats};
use crate::script::ScriptHost;

/// Bar colours, one per top-level phase in turn.
const COLOURS: [egui::Color32; 6] = [
    egui::Color32::from_rgb(214, 120, 90),
    egui::Color32::from_rgb(110, 160, 215),
    egui::Color32::from_rgb(120, 190, 120),
    egui::Color32::from_rgb(200, 170, 90),
    egui::Color32::from_rgb(170, 130, 200),
    egui::Color32::from_rgb(150, 150, 150),
];

/// Opens or closes the profiler: profiling runs only while it is open.
pub(crate) fn toggle(host: &mut ScriptHost) {
    let keep = (!host.profiling()).then_some(crate::script::profile::PANEL_WINDOW);
    host.set_profiling(keep);
}

/// Draws the panel while profiling is on.
pub(crate) fn draw(ctx: &egui::Context, host: &ScriptHost) {
    let Some(r) = host.profile() else { return };
    egui::Window::new("profiler")
        .anchor(egui::Align2::RIGHT_BOTTOM, [-8.0, -8.0])
        .default_width(560.0)
        .show(ctx, |ui| {
            ui.label(format!(
                "tick {:.2} ms mean, {:.2} p95, {:.2} worst over the last {} ticks (O closes)",
                r.tick_ms.mean, r.tick_ms.p95, r.tick_ms.worst, r.window
            ));
            flame(ui, "tick", r.tick_ms.mean, &r.phases);
            let frame: f64 = r.frame.iter().map(|p| p.ms.mean).sum();
            if frame > 0.0 {
                flame(ui, "frame", frame, &r.frame);
            }
            ui.separator();
            mods_table(ui, &r);
        });
}

/// A row of bars for `phases` (each as wide as its share of `total` ms), their children
/// under them.
fn flame(ui: &mut egui::Ui, label: &str, total: f64, phases: &[PhaseFigures]) {
    ui.label(format!("{label}: {total:.2} ms"));
    let width = ui.available_width();
    let row = 18.0;
    let (rect, response) =
        ui.allocate_exact_size(egui::vec2(width, row * 2.0 + 2.0), egui::Sense::hover());
    let painter = ui.painter_at(rect);
    let scale = if total > 0.0 {
        width as f64 / total
    } else {
        0.0
    };
    let mut x = rect.left();
    let mut tip = None;
    for (i, p) in phases.iter().enumerate() {
        let w = (p.ms.mean * scale) as f32;
        let colour = COLOURS[i % COLOURS.len()];
        let top = egui::Rect::from_min_size(egui::pos2(x, rect.top()), egui::vec2(w, row));
        bar(&painter, top, colour, &p.name);
        if response.hover_pos().is_some_and(|h| top.contains(h)) {
            tip = Some(describe(p));
        }
        let mut cx = x;
        for c in &p.children {
            let cw = (c.ms.mean * scale) as f32;
            let r = egui::Rect::from_min_size(
                egui::pos2(cx, rect.top() + row + 2.0),
                egui::vec2(cw, row),
            );
            bar(&painter, r, colour.gamma_multiply(0.7), &c.name);
            if response.hover_pos().is_some_and(|h| r.contains(h)) {
                tip = Some(describe(c));
            }
            cx += cw;
        }
        x += w;
    }
    if let Some(t) = tip {
        response.on_hover_text(t);
    }
    // The legend: every phase by name, with its time (narrow bars have no room for a label).
    ui.horizontal_wrapped(|ui| {
        for (i, p) in phases.iter().enumerate() {
            ui.colored_label(COLOURS[i % COLOURS.len()], "■");
            let inner: Vec<String> = p
                .children
                .iter()
                .map(|c| format!("{} {:.2}", c.name, c.ms.mean))
                .collect();
            let inner = if inner.is_empty() {
                String::new()
            } else {
                format!(" ({})", inner.join(", "))
            };
            ui.label(format!("{} {:.2} ms{inner}", p.name, p.ms.mean));
        }
    });
}

fn bar(painter: &egui::Painter, r: egui::Rect, colour: egui::Color32, name: &str) {
    if r.width() < 1.0 {
        return;
    }
    painter.rect_filled(r.shrink(0.5), 2.0, colour);
    if r.width() > 40.0 {
        painter.text(
            r.left_center() + egui::vec2(3.0, 0.0),
            egui::Align2::LEFT_CENTER,
            name,
            egui::FontId::proportional(11.0),
            egui::Color32::BLACK,
        );
    }
}

fn describe(p: &PhaseFigures) -> String {
    format!("{}: {}", p.name, ms(&p.ms))
}

fn ms(s: &Stats) -> String {
    format!("{:.3} / {:.3} / {:.3} ms", s.mean, s.p95, s.worst)
}

fn units(s: &Stats) -> String {
    format!("{:.0} / {:.0} / {:.0}", s.mean, s.p95, s.worst)
}

/// Per mod and callback: units and ms (mean / p95 / worst), budget share, memory.
fn mods_table(ui: &mut egui::Ui, r: &ProfileReport) {
    egui::ScrollArea::vertical()
        .max_height(260.0)
        .show(ui, |ui| {
            egui::Grid::new("profile mods")
                .striped(true)
                .show(ui, |ui| {
                    for h in [
                        "mod / callback",
                        "behaviour",
                        "units mean/p95/worst",
                        "ms mean/p95/worst",
                        "budget",
                        "memory",
                    ] {
                        ui.strong(h);
                    }
                    ui.end_row();
                    for m in &r.mods {
                        ui.strong(&m.name);
                        ui.label("");
                        ui.label(units(&m.units));
                        ui.label(ms(&m.ms));
                        ui.label(format!(
                            "{:.1} % (worst {:.1} %)",
                            m.budget_share.mean * 100.0,
                            m.budget_share.worst * 100.0
                        ));
                        ui.label(format!(
                            "{:.1} of {} MiB",
                            m.memory_bytes as f64 / (1 << 20) as f64,
                            m.memory_limit >> 20
                        ));
                        ui.end_row();
                        for c in &m.callbacks {
                            ui.label(format!("  {}", c.callback));
                            ui.label(&c.behaviour);
                            ui.label(units(&c.units));
                            ui.label(ms(&c.ms));
                            ui.label("");
                            ui.label("");
                            ui.end_row();
                        }
                    }
                });
        });
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every text the panel drew.
    fn texts(out: &egui::FullOutput) -> String {
        let mut all = String::new();
        for s in &out.shapes {
            if let egui::epaint::Shape::Text(t) = &s.shape {
                all.push_str(t.galley.text());
                all.push('\n');
            }
        }
        all
    }

    #[test]
    fn the_panel_shows_each_mods_callbacks_and_the_ticks_phases() {
        let mut host = ScriptHost::new(crate::script::HostOptions {
            threads: 1,
            ..Default::default()
        });
        let scripts = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("scripts");
        host.load(&["arena", "spider", "menagerie", "demo"].map(|m| scripts.join(m)));
        assert!(host.take_errors().is_empty());
        toggle(&mut host);
        for _ in 0..30 {
            host.tick();
        }
        let ctx = egui::Context::default();
        let input = || egui::RawInput {
            screen_rect: Some(egui::Rect::from_min_size(
                egui::Pos2::ZERO,
                egui::vec2(1600.0, 1000.0),
            )),
            ..Default::default()
        };
        // The first pass lays the window out; the second draws it at its size.
        // No renderer takes the font texture here: each pass's texture changes are dropped.
        let pass = |host: &ScriptHost| {
            let mut out = ctx.run_ui(input(), |ui| draw(ui.ctx(), host));
            out.textures_delta.clear();
            out
        };
        pass(&host);
        let out = pass(&host);
        let shown = texts(&out);
        for needle in [
            "over the last 30 ticks",
            "spider",
            "on_update",
            "wander",
            "scripts",
            "locomotion",
            "physics",
        ] {
            assert!(shown.contains(needle), "{needle} missing from\n{shown}");
        }
        // Closed, it shows nothing and profiling stops.
        toggle(&mut host);
        assert!(!host.profiling());
        assert!(texts(&pass(&host)).is_empty());
    }
}
