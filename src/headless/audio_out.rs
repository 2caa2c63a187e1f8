//! `skitter run --headless --audio-out F.wav`: the run's [`Mix`] written tick by tick to a
//! 16-bit stereo WAV, the listener at the camera (where the window's starts, moved by a
//! script's `camera.look`; `camera.follow` and camera paths leave it where it was).

use std::io;
use std::path::PathBuf;

use glam::Vec3;

use crate::audio::{Listener, Mix, SAMPLE_RATE, TICK_SAMPLES};
use crate::script::{CameraRequest, ScriptHost, SoundRequest};
use crate::sim::{World, WorldEvent};

/// Where to write and where the listener starts.
#[derive(Clone, Debug, PartialEq)]
pub struct AudioOptions {
    /// The WAV file.
    pub path: PathBuf,
    /// The camera's eye.
    pub eye: Vec3,
    /// What the camera looks at.
    pub target: Vec3,
}

/// A run's (or a viewer's) mix on its way to a file.
pub(crate) struct AudioOut {
    path: PathBuf,
    mix: Mix,
    ear: Listener,
    wav: hound::WavWriter<io::BufWriter<std::fs::File>>,
    ticks: u64,
    /// Scripts' sounds waiting for the next tick.
    queued: Vec<SoundRequest>,
}

fn wav_err(path: &std::path::Path, e: hound::Error) -> io::Error {
    io::Error::other(format!("{}: {e}", path.display()))
}

impl AudioOut {
    pub(crate) fn create(o: &AudioOptions, seed: u64) -> io::Result<AudioOut> {
        let spec = hound::WavSpec {
            channels: 2,
            sample_rate: SAMPLE_RATE,
            bits_per_sample: 16,
            sample_format: hound::SampleFormat::Int,
        };
        let mut wav = hound::WavWriter::create(&o.path, spec).map_err(|e| wav_err(&o.path, e))?;
        // The first tick's block is time 0 to 1/60 s, before anything happened: a tick's
        // events then sound at its end, the time the trace gives them (frame / 60 s).
        for _ in 0..TICK_SAMPLES * 2 {
            wav.write_sample(0i16).map_err(|e| wav_err(&o.path, e))?;
        }
        Ok(AudioOut {
            path: o.path.clone(),
            mix: Mix::new(seed),
            ear: Listener::looking(o.eye, o.target),
            wav,
            ticks: 0,
            queued: Vec::new(),
        })
    }

    /// A script's camera request: `camera.look` moves the listener.
    pub(super) fn camera(&mut self, r: &CameraRequest) {
        if let CameraRequest::Look { from, at } = r {
            self.ear = Listener::looking(*from, *at);
        }
    }

    /// Scripts' sounds to start with the next tick.
    pub(super) fn queue(&mut self, sounds: Vec<SoundRequest>) {
        self.queued.extend(sounds);
    }

    /// The tick's sound: the sounds scripts asked for in it, then its events' voices (the
    /// listener where the camera requests up to the last tick put it: `flush` hands them
    /// over as it takes them).
    pub(super) fn after_tick(
        &mut self,
        host: &mut ScriptHost,
        events: &[WorldEvent],
    ) -> io::Result<()> {
        self.queued.extend(host.take_sound_requests());
        self.write_tick(events, &host.world())
    }

    /// One tick's (or a viewer's frame's) sound: the queued scripts' sounds, then `events`'
    /// voices, in `world`.
    pub(crate) fn write_tick(&mut self, events: &[WorldEvent], world: &World) -> io::Result<()> {
        for r in std::mem::take(&mut self.queued) {
            if let Some(at) = r.position(world) {
                self.mix.play(r.sound, at, r.volume, r.pitch, &self.ear);
            }
        }
        let samples = self.mix.tick(events, world, &self.ear);
        debug_assert_eq!(samples.len(), TICK_SAMPLES * 2);
        for s in samples {
            self.wav
                .write_sample(s)
                .map_err(|e| wav_err(&self.path, e))?;
        }
        self.ticks += 1;
        Ok(())
    }

    /// Closes the file; a line for the console saying what was heard.
    pub(crate) fn finish(self) -> io::Result<String> {
        let s = self.mix.stats();
        self.wav.finalize().map_err(|e| wav_err(&self.path, e))?;
        Ok(format!(
            "audio: wrote {} ({:.1} s): {} voices from {} footfalls, lifts and hits ({} merged, {} too far or quiet, {} over the {}-voice cap; at most {} at once)",
            self.path.display(),
            self.ticks as f64 / 60.0,
            s.voices,
            s.events,
            s.merged,
            s.culled,
            s.capped,
            crate::audio::MAX_VOICES,
            s.most_at_once
        ))
    }
}
