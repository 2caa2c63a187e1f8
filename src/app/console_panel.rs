//! The window's console (the `` ` `` key): a window along the bottom with the scrollback, the
//! state lines run in (the console's own, or a mod's), and an input line — Enter runs it
//! (an unfinished chunk continues on the next line), Up/Down walk the history, Tab
//! completes, Escape drops an unfinished entry or closes the panel. Lines run after the
//! frame's overlay pass, between ticks (also while paused), like every other input.

use crate::script::console::{Console, ConsoleKind, ConsoleLine};
use crate::script::{LogLine, ScriptHost};

/// What the panel asked for during the overlay pass (run after it, with the host writable).
enum Request {
    Run(String),
    Complete(String),
}

/// The console panel's state.
#[derive(Default)]
pub(crate) struct ConsolePanel {
    open: bool,
    console: Console,
    input: String,
    /// Names a Tab left open (more than one fitted).
    options: Vec<String>,
    requests: Vec<Request>,
    /// Give the input line the keyboard on the next frame.
    focus: bool,
}

/// The colour of a scrollback line.
fn colour(kind: ConsoleKind) -> egui::Color32 {
    match kind {
        ConsoleKind::Input => egui::Color32::from_rgb(150, 190, 255),
        ConsoleKind::Result => egui::Color32::from_rgb(220, 220, 220),
        ConsoleKind::Error => egui::Color32::from_rgb(255, 120, 110),
        ConsoleKind::Note | ConsoleKind::Log => egui::Color32::from_rgb(170, 170, 140),
    }
}

impl ConsolePanel {
    /// Opens or closes the panel (the `` ` `` key).
    pub(crate) fn toggle(&mut self) {
        self.open = !self.open;
        self.focus = self.open;
    }

    /// A mod's log line, shown in the scrollback too (what `print` in a console line says).
    pub(crate) fn log(&mut self, line: &LogLine) {
        self.console.note_log(line);
    }

    /// Draws the panel (when open).
    pub(crate) fn draw(&mut self, ctx: &egui::Context, host: &ScriptHost) {
        if !self.open {
            return;
        }
        let width = (ctx.content_rect().width() - 16.0).max(200.0);
        egui::Window::new("console")
            .anchor(egui::Align2::LEFT_BOTTOM, [8.0, -8.0])
            .fixed_size([width, 240.0])
            .collapsible(false)
            .show(ctx, |ui| {
                self.header(ui, host);
                let input_h = ui.text_style_height(&egui::TextStyle::Monospace) * 2.5;
                egui::ScrollArea::vertical()
                    .max_height((ui.available_height() - input_h).max(40.0))
                    .stick_to_bottom(true)
                    .auto_shrink([false, false])
                    .show(ui, |ui| self.scrollback(ui));
                self.input_line(ui);
            });
    }

    fn header(&mut self, ui: &mut egui::Ui, host: &ScriptHost) {
        ui.horizontal(|ui| {
            ui.label("console — runs in");
            let shown = self.console.target().unwrap_or("console (own)").to_string();
            egui::ComboBox::from_id_salt("console target")
                .selected_text(shown)
                .show_ui(ui, |ui| {
                    if ui
                        .selectable_label(self.console.target().is_none(), "console (own)")
                        .clicked()
                    {
                        self.console.set_target(None);
                    }
                    for m in host.console_targets() {
                        let on = self.console.target() == Some(m.as_str());
                        if ui.selectable_label(on, &m).clicked() {
                            self.console.set_target(Some(m));
                        }
                    }
                });
            ui.label(
                egui::RichText::new("Enter run · ↑↓ history · Tab complete · Esc close · :help")
                    .weak(),
            );
        });
    }

    fn scrollback(&self, ui: &mut egui::Ui) {
        for ConsoleLine { kind, text } in self.console.scrollback() {
            ui.label(egui::RichText::new(text).monospace().color(colour(*kind)));
        }
        if !self.options.is_empty() {
            ui.label(
                egui::RichText::new(self.options.join("  "))
                    .monospace()
                    .color(colour(ConsoleKind::Note)),
            );
        }
    }

    fn input_line(&mut self, ui: &mut egui::Ui) {
        ui.horizontal(|ui| {
            ui.label(egui::RichText::new(self.console.prompt()).monospace());
            let edit = ui.add(
                egui::TextEdit::singleline(&mut self.input)
                    .font(egui::TextStyle::Monospace)
                    .desired_width(f32::INFINITY)
                    .lock_focus(true),
            );
            if self.focus {
                edit.request_focus();
                self.focus = false;
            }
            // The key that opened the panel is not part of the line.
            if self.input.contains('`') {
                self.input = self.input.replace('`', "");
                self.open = false;
                return;
            }
            self.input = self.input.replace('\t', "");
            if !edit.has_focus() && !edit.lost_focus() {
                return;
            }
            let key = |k| ui.input(|i| i.key_pressed(k));
            if edit.lost_focus() && key(egui::Key::Enter) {
                self.requests
                    .push(Request::Run(std::mem::take(&mut self.input)));
                self.options.clear();
                self.focus = true;
            } else if key(egui::Key::Tab) {
                self.requests.push(Request::Complete(self.input.clone()));
            } else if key(egui::Key::ArrowUp) {
                if let Some(h) = self.console.history_back() {
                    self.input = h.to_string();
                }
            } else if key(egui::Key::ArrowDown) {
                self.input = self.console.history_forward().unwrap_or("").to_string();
            } else if key(egui::Key::Escape) {
                if self.console.prompt() == "> " && self.input.is_empty() {
                    self.open = false;
                }
                self.console.cancel();
                self.input.clear();
            }
        });
    }

    /// Runs what the panel asked for this frame.
    pub(crate) fn run_requests(&mut self, host: &mut ScriptHost) {
        for r in std::mem::take(&mut self.requests) {
            match r {
                Request::Run(line) => {
                    // The terminal that started the window follows the session too.
                    for shown in self.console.submit(host, &line) {
                        match shown.kind {
                            ConsoleKind::Error => println!("console: error: {}", shown.text),
                            _ => println!("console: {}", shown.text),
                        }
                    }
                }
                Request::Complete(text) => {
                    let c = self.console.complete(host, &text);
                    self.input = c.text;
                    self.options = c.options;
                    self.focus = true;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(k: egui::Key) -> egui::Event {
        egui::Event::Key {
            key: k,
            physical_key: None,
            pressed: true,
            repeat: false,
            modifiers: egui::Modifiers::NONE,
        }
    }

    /// One frame of the panel with `events` typed into it, then what it asked for run.
    fn frame(
        ctx: &egui::Context,
        p: &mut ConsolePanel,
        host: &mut ScriptHost,
        events: Vec<egui::Event>,
    ) {
        let input = egui::RawInput {
            screen_rect: Some(egui::Rect::from_min_size(
                egui::Pos2::ZERO,
                egui::vec2(1280.0, 720.0),
            )),
            events,
            ..Default::default()
        };
        let mut out = ctx.run_ui(input, |ui| p.draw(ui.ctx(), host));
        // No renderer takes the font texture here.
        out.textures_delta.clear();
        p.run_requests(host);
    }

    #[test]
    fn typed_lines_run_complete_and_come_back_from_history() {
        let ctx = egui::Context::default();
        let mut host = ScriptHost::new(crate::script::HostOptions {
            threads: 1,
            ..Default::default()
        });
        let mut p = ConsolePanel::default();
        p.toggle();
        frame(&ctx, &mut p, &mut host, vec![]);
        frame(
            &ctx,
            &mut p,
            &mut host,
            vec![egui::Event::Text("6 * 7".into())],
        );
        assert_eq!(p.input, "6 * 7");
        frame(&ctx, &mut p, &mut host, vec![key(egui::Key::Enter)]);
        let last = p.console.scrollback().back().expect("a result");
        assert_eq!((last.kind, last.text.as_str()), (ConsoleKind::Result, "42"));
        assert!(p.input.is_empty());
        // Tab completes in the state lines run in; Up brings the last entry back.
        frame(&ctx, &mut p, &mut host, vec![]);
        frame(
            &ctx,
            &mut p,
            &mut host,
            vec![egui::Event::Text("wor".into())],
        );
        frame(&ctx, &mut p, &mut host, vec![key(egui::Key::Tab)]);
        assert_eq!(p.input, "world");
        frame(&ctx, &mut p, &mut host, vec![key(egui::Key::ArrowUp)]);
        assert_eq!(p.input, "6 * 7");
        // The key that opens the console closes it too, even while typing.
        frame(&ctx, &mut p, &mut host, vec![egui::Event::Text("`".into())]);
        assert!(!p.open);
    }
}
