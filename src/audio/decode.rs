//! A mod's sound file (`.wav`, `.ogg` Vorbis, `.flac`) decoded to the mix's form: mono f32
//! at [`SAMPLE_RATE`], at most [`MAX_SECONDS`] long. Whatever is wrong with a file is said in
//! words (empty, not audio, truncated, too long) — never a panic.

use std::sync::Arc;

use symphonia::core::audio::SampleBuffer;
use symphonia::core::codecs::DecoderOptions;
use symphonia::core::errors::Error;
use symphonia::core::formats::FormatOptions;
use symphonia::core::io::MediaSourceStream;
use symphonia::core::meta::MetadataOptions;
use symphonia::core::probe::Hint;

use super::SAMPLE_RATE;

/// Longest sound a mod may bring, s: footfalls and thuds, not music.
pub const MAX_SECONDS: f32 = 10.0;

/// Decodes `bytes` (a file named with extension `ext`) to mono at [`SAMPLE_RATE`].
pub fn decode(bytes: Vec<u8>, ext: &str) -> Result<Arc<[f32]>, String> {
    if bytes.is_empty() {
        return Err("the file is empty".into());
    }
    let mss = MediaSourceStream::new(Box::new(std::io::Cursor::new(bytes)), Default::default());
    let mut hint = Hint::new();
    hint.with_extension(ext);
    let probed = symphonia::default::get_probe()
        .format(
            &hint,
            mss,
            &FormatOptions::default(),
            &MetadataOptions::default(),
        )
        .map_err(|e| format!("not a sound file skitter reads (.wav, .ogg Vorbis, .flac): {e}"))?;
    let mut format = probed.format;
    let track = format
        .default_track()
        .ok_or("no audio track in it")?
        .clone();
    let rate = track
        .codec_params
        .sample_rate
        .ok_or("no sample rate in it")?;
    let mut decoder = symphonia::default::get_codecs()
        .make(&track.codec_params, &DecoderOptions::default())
        .map_err(|e| format!("its audio cannot be decoded: {e}"))?;
    let mut mono: Vec<f32> = Vec::new();
    let most = (MAX_SECONDS * rate as f32) as usize;
    loop {
        let packet = match format.next_packet() {
            Ok(p) => p,
            Err(Error::IoError(e)) if e.kind() == std::io::ErrorKind::UnexpectedEof => break,
            Err(Error::ResetRequired) => break,
            Err(e) => return Err(format!("it is damaged: {e}")),
        };
        if packet.track_id() != track.id {
            continue;
        }
        let buf = match decoder.decode(&packet) {
            Ok(b) => b,
            // One bad packet: skipped, as players do.
            Err(Error::DecodeError(_)) => continue,
            Err(e) => return Err(format!("it is damaged: {e}")),
        };
        let spec = *buf.spec();
        let channels = spec.channels.count().max(1);
        let mut samples = SampleBuffer::<f32>::new(buf.capacity() as u64, spec);
        samples.copy_interleaved_ref(buf);
        for frame in samples.samples().chunks(channels) {
            mono.push(frame.iter().sum::<f32>() / channels as f32);
        }
        if mono.len() > most {
            return Err(format!("it is longer than {MAX_SECONDS} s"));
        }
    }
    if mono.is_empty() {
        return Err("no audio in it (truncated?)".into());
    }
    Ok(resample(&mono, rate).into())
}

/// `x` at `rate` Hz, linearly resampled to [`SAMPLE_RATE`] and kept within -1..1.
fn resample(x: &[f32], rate: u32) -> Vec<f32> {
    let clamp = |v: f32| {
        if v.is_finite() {
            v.clamp(-1.0, 1.0)
        } else {
            0.0
        }
    };
    if rate == SAMPLE_RATE {
        return x.iter().map(|v| clamp(*v)).collect();
    }
    let step = rate as f64 / SAMPLE_RATE as f64;
    let n = ((x.len() as f64) / step).floor() as usize;
    (0..n)
        .map(|i| {
            let at = i as f64 * step;
            let j = at as usize;
            let f = (at - j as f64) as f32;
            let a = x[j.min(x.len() - 1)];
            let b = x[(j + 1).min(x.len() - 1)];
            clamp(a + (b - a) * f)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wav(rate: u32, channels: u16, frames: usize) -> Vec<u8> {
        let mut out = std::io::Cursor::new(Vec::new());
        let spec = hound::WavSpec {
            channels,
            sample_rate: rate,
            bits_per_sample: 16,
            sample_format: hound::SampleFormat::Int,
        };
        let mut w = hound::WavWriter::new(&mut out, spec).expect("writer");
        for i in 0..frames {
            let v = ((i as f32 * 0.05).sin() * 16000.0) as i16;
            for _ in 0..channels {
                w.write_sample(v).expect("sample");
            }
        }
        w.finalize().expect("finalize");
        out.into_inner()
    }

    #[test]
    fn a_wav_at_any_rate_comes_out_mono_at_the_mix_rate() {
        let s = decode(wav(24_000, 2, 2400), "wav").expect("decodes");
        assert!((s.len() as i64 - 4800).abs() <= 2, "{}", s.len());
        assert!(s.iter().all(|v| v.abs() <= 1.0));
        assert!(s.iter().fold(0.0f32, |m, v| m.max(v.abs())) > 0.4);
    }

    #[test]
    fn bad_files_are_said_in_words() {
        assert_eq!(decode(Vec::new(), "wav").unwrap_err(), "the file is empty");
        let e = decode(b"hello, not a sound".to_vec(), "wav").unwrap_err();
        assert!(e.starts_with("not a sound file"), "{e}");
        let mut cut = wav(48_000, 1, 4800);
        cut.truncate(44);
        let e = decode(cut, "wav").unwrap_err();
        assert!(!e.is_empty());
        let e = decode(wav(8_000, 1, 8_000 * 11), "wav").unwrap_err();
        assert!(e.contains("longer than 10 s"), "{e}");
    }
}
