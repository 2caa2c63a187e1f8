//! Sound out of the window and `skitter join` viewers: the same [`Mix`] that
//! `--audio-out` writes to a file, for a listener at the window's camera, fed a tick-long
//! block for every 1/60 s of real time (the ticks' events in the next block) to the default
//! output device (cpal) through a lock-free ring the device's thread reads
//! (it never waits on a tick: an empty ring plays silence). No device — a server, CI — is
//! said once, in one line, and the run goes on silent without mixing at all; ALSA's own
//! lines about missing cards are kept off stderr (the first one goes into that line).

use std::sync::{Arc, Mutex};

use cpal::traits::{DeviceTrait, HostTrait, StreamTrait};
use glam::Vec3;

use crate::audio::{Listener, Mix, SAMPLE_RATE, TICK_SAMPLES};
use crate::script::SoundRequest;
use crate::sim::{World, WorldEvent};

/// The most mixed sound waiting for the device, in frames (100 ms): past it the rest of a
/// block is dropped (a device taking samples slower than its rate says).
pub(crate) const RING_FRAMES: usize = SAMPLE_RATE as usize / 10;

/// The window's (or a viewer's) sound.
pub(crate) struct Speaker {
    out: Option<Output>,
    mix: Mix,
    muted: bool,
    /// What the overlay says of it.
    state: String,
    /// Events and scripts' sounds (which, where, volume, pitch) waiting for the next
    /// block, and the time the frames have covered that no block has yet (s).
    waiting: Vec<WorldEvent>,
    plays: Vec<(usize, Vec3, f32, f32)>,
    owed: f64,
    /// Tick-long blocks mixed.
    blocks: u64,
}

/// A block's length, s: a tick's.
const BLOCK_SECONDS: f64 = TICK_SAMPLES as f64 / SAMPLE_RATE as f64;

/// The most frame time the sound catches up on at once, s.
const MAX_OWED: f64 = 0.1;

/// How many tick-long blocks are due after a frame of `dt` seconds, `owed` the time earlier
/// frames covered that no block has yet (kept within [`MAX_OWED`]).
fn due(owed: &mut f64, dt: f64) -> usize {
    let tick = BLOCK_SECONDS;
    *owed = (*owed + dt.max(0.0)).min(MAX_OWED);
    let n = (*owed / tick + 1e-9).floor();
    *owed = (*owed - n * tick).max(0.0);
    n as usize
}

struct Output {
    /// Kept alive: dropping it stops the sound.
    _stream: cpal::Stream,
    ring: rtrb::Producer<[i16; 2]>,
    /// The first failure the device's thread reported.
    failed: Arc<Mutex<Option<String>>>,
    /// Frames dropped for a full ring.
    dropped: u64,
}

impl Speaker {
    /// Opens the default output device (unless `mute`), saying on stderr what it found — the
    /// device, or that there is none and the run is silent — once. `seed`: the world's (the
    /// variations and pitches, as `--audio-out` has them).
    pub(crate) fn open(seed: u64, mute: bool) -> Speaker {
        let (out, state) = if mute {
            (None, "muted (--mute)".to_string())
        } else {
            match open_device() {
                Ok((out, name, rate, channels)) => {
                    let s = format!("{name}, {rate} Hz, {channels} channels");
                    eprintln!("skitter: sound: {s}");
                    (Some(out), s)
                }
                Err(why) => {
                    eprintln!("skitter: sound: {why}: running silent");
                    (None, format!("silent: {why}"))
                }
            }
        };
        Speaker {
            out,
            mix: Mix::new(seed),
            muted: false,
            state,
            waiting: Vec::new(),
            plays: Vec::new(),
            owed: 0.0,
            blocks: 0,
        }
    }

    /// Whether anything is heard (a device, not muted).
    pub(crate) fn live(&self) -> bool {
        self.out.is_some() && !self.muted
    }

    /// `M`: sound off or on again.
    pub(crate) fn toggle_mute(&mut self) {
        self.muted = !self.muted;
    }

    /// What a tick (or a viewer's frame) made happen: its `events` and scripts' `requests`
    /// (placed now, where their creatures are), for the next block. Dropped while nothing
    /// is heard.
    pub(crate) fn queue(
        &mut self,
        events: &[WorldEvent],
        requests: Vec<SoundRequest>,
        world: &World,
    ) {
        if !self.live() {
            return;
        }
        self.waiting.extend_from_slice(events);
        for r in requests {
            if let Some(at) = r.position(world) {
                self.plays.push((r.sound, at, r.volume, r.pitch));
            }
        }
    }

    /// A drawn frame `dt` seconds after the last: as many tick-long blocks are mixed for a
    /// listener at `eye` looking at `target` as real time has covered — the queued sounds
    /// in the first — so the sound runs at the wall clock's pace whatever the world's:
    /// paused, voices ring out; slowed, footfalls come further apart; sped up, a block
    /// takes several ticks' events. At most [`MAX_OWED`] is caught up after a stall.
    pub(crate) fn frame(&mut self, dt: f64, world: &World, (eye, target): (Vec3, Vec3)) {
        if !self.live() {
            return;
        }
        let ear = Listener::looking(eye, target);
        for _ in 0..due(&mut self.owed, dt) {
            for (sound, at, volume, pitch) in std::mem::take(&mut self.plays) {
                self.mix.play(sound, at, volume, pitch, &ear);
            }
            let events = std::mem::take(&mut self.waiting);
            let block = self.mix.tick(&events, world, &ear);
            if !self.send(&block) {
                return;
            }
        }
    }

    /// A block to the device; false when the device has stopped (said once, then silent).
    fn send(&mut self, block: &[i16]) -> bool {
        let Some(out) = self.out.as_mut() else {
            return false;
        };
        if let Some(why) = out.failed.lock().ok().and_then(|mut f| f.take()) {
            eprintln!("skitter: sound: the device stopped ({why}): silent from here");
            self.state = format!("silent: the device stopped ({why})");
            self.out = None;
            return false;
        }
        debug_assert_eq!(block.len(), TICK_SAMPLES * 2);
        let frames = block.chunks_exact(2).map(|s| [s[0], s[1]]);
        let room = out.ring.slots().min(frames.len());
        if let Ok(chunk) = out.ring.write_chunk_uninit(room) {
            chunk.fill_from_iter(frames);
        }
        out.dropped += (TICK_SAMPLES - room) as u64;
        self.blocks += 1;
        true
    }

    /// What was played, for the line a window prints as it closes (`None`: no device).
    pub(crate) fn summary(&self) -> Option<String> {
        let out = self.out.as_ref()?;
        let s = self.mix.stats();
        Some(format!(
            "skitter: sound: played {:.1} s: {} voices from {} footfalls, lifts and hits ({} frames dropped)",
            self.blocks as f64 * BLOCK_SECONDS,
            s.voices,
            s.events,
            out.dropped
        ))
    }

    /// What the overlay shows: the device or why silent, and muted.
    pub(crate) fn line(&self) -> String {
        match (&self.out, self.muted) {
            (Some(_), true) => format!("sound: muted (M) — {}", self.state),
            (Some(o), false) if o.dropped > 0 => {
                format!("sound: {} ({} frames dropped)", self.state, o.dropped)
            }
            _ => format!("sound: {}", self.state),
        }
    }
}

/// The default output device playing the ring; its name, rate and channels. Errors say
/// why there is no sound, in a phrase.
fn open_device() -> Result<(Output, String, u32, u16), String> {
    let quiet = QuietAlsa::new();
    let host = cpal::default_host();
    let device = host
        .default_output_device()
        .ok_or_else(|| "no output device".to_string())?;
    // ALSA's reason ("cannot find card '0'") where it gave one.
    let why = |e: String| match quiet.first() {
        Some(alsa) => format!("ALSA: {alsa}"),
        None => e,
    };
    let name = device
        .description()
        .map(|d| d.to_string())
        .unwrap_or_else(|_| "the default output".to_string());
    let config = pick_config(&device).map_err(|e| format!("no output device ({})", why(e)))?;
    let (rate, channels) = (config.sample_rate(), config.channels());
    let (ring, feed) = rtrb::RingBuffer::new(RING_FRAMES);
    let failed = Arc::new(Mutex::new(None));
    let stream = build_stream(&device, &config, Feed::new(feed, rate, channels), &failed)
        .map_err(|e| format!("{name} would not open ({})", why(e)))?;
    stream
        .play()
        .map_err(|e| format!("{name} would not play ({})", why(e.to_string())))?;
    let out = Output {
        _stream: stream,
        ring,
        failed,
        dropped: 0,
    };
    Ok((out, name, rate, channels))
}

/// The device's own configuration, at 48 kHz when it offers that with the same channels
/// and format (else at its rate, resampled).
fn pick_config(device: &cpal::Device) -> Result<cpal::SupportedStreamConfig, String> {
    let default = device.default_output_config().map_err(|e| e.to_string())?;
    if default.sample_rate() == SAMPLE_RATE {
        return Ok(default);
    }
    let at_48k = device.supported_output_configs().ok().and_then(|mut all| {
        all.find(|c| {
            c.channels() == default.channels()
                && c.sample_format() == default.sample_format()
                && (c.min_sample_rate()..=c.max_sample_rate()).contains(&SAMPLE_RATE)
        })
    });
    Ok(at_48k.map_or(default, |c| c.with_sample_rate(SAMPLE_RATE)))
}

fn build_stream(
    device: &cpal::Device,
    config: &cpal::SupportedStreamConfig,
    feed: Feed,
    failed: &Arc<Mutex<Option<String>>>,
) -> Result<cpal::Stream, String> {
    use cpal::SampleFormat as F;
    let failed = Arc::clone(failed);
    let on_error = move |e: cpal::Error| {
        use cpal::ErrorKind as K;
        // Underruns, a rerouted default, a refused priority: the sound goes on.
        let fatal = matches!(
            e.kind(),
            K::DeviceNotAvailable | K::HostUnavailable | K::StreamInvalidated | K::PermissionDenied
        );
        if let (true, Ok(mut f)) = (fatal, failed.lock()) {
            f.get_or_insert_with(|| e.to_string());
        }
    };
    let c = config.config();
    macro_rules! stream {
        ($t:ty) => {{
            let mut feed = feed;
            device.build_output_stream(
                c,
                move |out: &mut [$t], _: &cpal::OutputCallbackInfo| feed.fill(out),
                on_error,
                None,
            )
        }};
    }
    let built = match config.sample_format() {
        F::F32 => stream!(f32),
        F::I16 => stream!(i16),
        F::I32 => stream!(i32),
        F::U16 => stream!(u16),
        F::U8 => stream!(u8),
        F::F64 => stream!(f64),
        other => {
            return Err(format!(
                "its sample format {other} is not one skitter writes"
            ))
        }
    };
    built.map_err(|e| e.to_string())
}

/// The device's side of the ring: 48 kHz stereo frames to the device's rate (linear) and
/// channels (mono: both sides; more than two: the first two, the rest silent).
pub(crate) struct Feed {
    ring: rtrb::Consumer<[i16; 2]>,
    /// Source frames per device frame.
    step: f64,
    /// Between `a` (0) and `b` (1).
    frac: f64,
    a: [f32; 2],
    b: [f32; 2],
    channels: usize,
}

impl Feed {
    pub(crate) fn new(ring: rtrb::Consumer<[i16; 2]>, rate: u32, channels: u16) -> Feed {
        Feed {
            ring,
            step: SAMPLE_RATE as f64 / rate.max(1) as f64,
            // The first frame reads the first sample in (to interpolate towards).
            frac: 1.0,
            a: [0.0; 2],
            b: [0.0; 2],
            channels: channels.max(1) as usize,
        }
    }

    fn next_frame(&mut self) -> [f32; 2] {
        while self.frac >= 1.0 {
            self.frac -= 1.0;
            self.a = self.b;
            // An empty ring: silence (a tick late, or none: paused).
            let s = self.ring.pop().unwrap_or([0, 0]);
            self.b = [s[0] as f32 / 32768.0, s[1] as f32 / 32768.0];
        }
        let t = self.frac as f32;
        let f = [
            self.a[0] + (self.b[0] - self.a[0]) * t,
            self.a[1] + (self.b[1] - self.a[1]) * t,
        ];
        self.frac += self.step;
        f
    }

    /// Fills a device buffer (interleaved, `channels` a frame).
    pub(crate) fn fill<T: cpal::Sample + cpal::FromSample<f32>>(&mut self, out: &mut [T]) {
        let n = self.channels;
        for frame in out.chunks_mut(n) {
            let [l, r] = self.next_frame();
            for (i, s) in frame.iter_mut().enumerate() {
                let v = match (n, i) {
                    (1, _) => 0.5 * (l + r),
                    (_, 0) => l,
                    (_, 1) => r,
                    _ => 0.0,
                };
                *s = T::from_sample(v);
            }
        }
    }
}

/// ALSA's library error lines (`ALSA lib confmisc.c:855:(parse_card) cannot find card '0'`)
/// taken off stderr on this thread (where cpal looks for and opens the device) into a buffer:
/// the first of them says why there is no sound.
struct QuietAlsa {
    #[cfg(target_os = "linux")]
    said: Option<std::rc::Rc<std::cell::RefCell<alsa::Output>>>,
}

impl QuietAlsa {
    fn new() -> QuietAlsa {
        QuietAlsa {
            #[cfg(target_os = "linux")]
            said: alsa::Output::local_error_handler().ok(),
        }
    }

    /// The first line ALSA said, if any.
    fn first(&self) -> Option<String> {
        #[cfg(target_os = "linux")]
        if let Some(o) = &self.said {
            let text = o.borrow().to_string();
            return text.lines().next().map(|l| l.trim().to_string());
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fed(frames: &[[i16; 2]], rate: u32, channels: u16, out_len: usize) -> Vec<f32> {
        let (mut p, c) = rtrb::RingBuffer::new(RING_FRAMES);
        assert!(p.push_partial_slice(frames).1.is_empty());
        let mut feed = Feed::new(c, rate, channels);
        let mut out = vec![0.0f32; out_len];
        feed.fill(&mut out);
        out
    }

    #[test]
    fn at_48k_stereo_the_device_gets_the_mix_as_made_then_silence() {
        let frames: Vec<[i16; 2]> = (0..100).map(|i| [i * 100, -i * 100]).collect();
        let out = fed(&frames, 48_000, 2, 2 * 120);
        // One frame of delay (the interpolation's), then every frame as made.
        assert_eq!(out[0], 0.0);
        for i in 0..100 {
            assert_eq!(out[2 * (i + 1)], (i as f32 * 100.0) / 32768.0, "left {i}");
            assert_eq!(
                out[2 * (i + 1) + 1],
                -(i as f32 * 100.0) / 32768.0,
                "right {i}"
            );
        }
        // Ran dry: silence, not a repeat.
        assert!(out[2 * 102..].iter().all(|s| *s == 0.0));
    }

    fn crossings(s: impl Iterator<Item = f32>) -> usize {
        let v: Vec<f32> = s.collect();
        v.windows(2)
            .filter(|w| (w[0] < 0.0) != (w[1] < 0.0))
            .count()
    }

    #[test]
    fn another_rate_keeps_the_pitch_and_mono_or_many_channels_get_both_sides() {
        // 1 s of a 440 Hz tone, left only.
        let tone: Vec<[i16; 2]> = (0..4_000)
            .map(|i| {
                let t = i as f32 / SAMPLE_RATE as f32;
                [
                    ((t * 440.0 * std::f32::consts::TAU).sin() * 16_000.0) as i16,
                    0,
                ]
            })
            .collect();
        // 44.1 kHz: the same number of crossings over the same time (the pitch kept).
        let n = (4_000.0 * 44_100.0 / 48_000.0) as usize - 2;
        let out = fed(&tone, 44_100, 2, 2 * n);
        let at_48k = crossings(tone.iter().map(|f| f[0] as f32));
        let at_44k = crossings(out.iter().step_by(2).copied());
        assert!(at_48k.abs_diff(at_44k) <= 1, "{at_48k} vs {at_44k}");
        assert!(out.iter().skip(1).step_by(2).all(|s| *s == 0.0));
        // Mono: half of each side.
        let mono = fed(&tone[..100], 48_000, 1, 100);
        assert!((mono[11] - 0.5 * tone[10][0] as f32 / 32768.0).abs() < 1e-6);
        // Six channels: left, right, then silence.
        let six = fed(&tone[..100], 48_000, 6, 6 * 50);
        assert!((six[6 * 11] - tone[10][0] as f32 / 32768.0).abs() < 1e-6);
        assert!(six.chunks(6).all(|f| f[2..].iter().all(|s| *s == 0.0)));
    }

    #[test]
    fn blocks_follow_real_time_whatever_the_frames() {
        let total = |dt: f64, frames: usize| {
            let mut owed = 0.0;
            (0..frames).map(|_| due(&mut owed, dt)).sum::<usize>()
        };
        // One second is 60 blocks at 60, 144 or 30 frames a second.
        assert_eq!(total(1.0 / 60.0, 60), 60);
        assert_eq!(total(1.0 / 144.0, 144), 60);
        assert_eq!(total(1.0 / 30.0, 30), 60);
        // At 144 frames a second most frames mix nothing, some one.
        let mut owed = 0.0;
        let per: Vec<usize> = (0..10).map(|_| due(&mut owed, 1.0 / 144.0)).collect();
        assert!(per.iter().all(|n| *n <= 1) && per.contains(&0) && per.contains(&1));
        // A two-second stall catches up 100 ms, not two seconds.
        let mut owed = 0.0;
        assert_eq!(due(&mut owed, 2.0), 6);
    }

    #[test]
    fn sixteen_bit_devices_get_the_same_samples() {
        let (mut p, c) = rtrb::RingBuffer::new(16);
        let _ = p.push_partial_slice(&[[1000, -1000], [-32768, 32767]]);
        let mut feed = Feed::new(c, 48_000, 2);
        let mut out = [0i16; 6];
        feed.fill(&mut out);
        assert_eq!(out, [0, 0, 1000, -1000, -32768, 32767]);
    }
}
