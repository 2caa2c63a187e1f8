//! Offscreen rendering: no window, no display. Renders the scene into a texture, reads it
//! back and writes a PNG. Used by `skitter run --screenshot` and the render tests.

use std::path::Path;

use super::camera::OrbitCamera;
use super::gpu::{open_device, RenderError, Renderer};
use super::instances::FrameInstances;
use crate::sim::level::Level;

/// Colour format of offscreen frames (sRGB, so the bytes are ready for a PNG).
pub(crate) const FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8UnormSrgb;

/// A renderer with its own device and a `width`×`height` target.
pub struct Offscreen {
    /// The scene renderer.
    pub renderer: Renderer,
    /// The adapter's name (e.g. "llvmpipe (LLVM 15.0.6, 256 bits)").
    pub adapter_name: String,
    target: wgpu::Texture,
    readback: wgpu::Buffer,
    width: u32,
    height: u32,
    padded_row: u32,
}

impl Offscreen {
    /// Opens a device (no surface) and a target of the given size, with `shader` as WGSL.
    pub fn new(width: u32, height: u32, shader: &str) -> Result<Offscreen, RenderError> {
        // Vulkan/Metal/DX12 first; OpenGL only if none of those has an adapter (it probes the
        // display server, which an offscreen run should not need).
        let primary = wgpu::InstanceDescriptor {
            backends: wgpu::Backends::PRIMARY,
            ..wgpu::InstanceDescriptor::new_without_display_handle()
        }
        .with_env();
        let (adapter, device, queue) = match open_device(&wgpu::Instance::new(primary), None) {
            Ok(found) => found,
            Err(_) => open_device(
                &wgpu::Instance::new(
                    wgpu::InstanceDescriptor::new_without_display_handle_from_env(),
                ),
                None,
            )?,
        };
        let adapter_name = adapter.get_info().name;
        let (width, height) = (width.max(1), height.max(1));
        let target = device.create_texture(&wgpu::TextureDescriptor {
            label: Some("offscreen"),
            size: wgpu::Extent3d {
                width,
                height,
                depth_or_array_layers: 1,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: FORMAT,
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
            view_formats: &[],
        });
        let padded_row = (width * 4).div_ceil(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT)
            * wgpu::COPY_BYTES_PER_ROW_ALIGNMENT;
        let readback = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("readback"),
            size: padded_row as u64 * height as u64,
            usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
            mapped_at_creation: false,
        });
        let renderer = Renderer::new(device, queue, FORMAT, shader);
        Ok(Offscreen {
            renderer,
            adapter_name,
            target,
            readback,
            width,
            height,
            padded_row,
        })
    }

    /// Frame size.
    pub fn size(&self) -> (u32, u32) {
        (self.width, self.height)
    }

    /// Draws one frame (and waits for it). Returns nothing: read it with [`Offscreen::read`].
    pub fn draw(
        &mut self,
        level: &Level,
        level_version: u64,
        frame: &FrameInstances,
        camera: &OrbitCamera,
        time: f32,
    ) {
        let size = (self.width, self.height);
        self.renderer.set_level(level, level_version);
        self.renderer.prepare(frame, camera, size, level, time);
        let view = self.target.create_view(&Default::default());
        let mut encoder = self
            .renderer
            .device()
            .create_command_encoder(&Default::default());
        self.renderer.encode(&mut encoder, &view, size);
        self.renderer.queue().submit([encoder.finish()]);
        let _ = self
            .renderer
            .device()
            .poll(wgpu::PollType::wait_indefinitely());
    }

    /// Reads the last frame back as tightly packed RGBA8 (sRGB).
    pub fn read(&mut self) -> Result<Vec<u8>, RenderError> {
        let mut encoder = self
            .renderer
            .device()
            .create_command_encoder(&Default::default());
        encoder.copy_texture_to_buffer(
            wgpu::TexelCopyTextureInfo {
                texture: &self.target,
                mip_level: 0,
                origin: wgpu::Origin3d::ZERO,
                aspect: wgpu::TextureAspect::All,
            },
            wgpu::TexelCopyBufferInfo {
                buffer: &self.readback,
                layout: wgpu::TexelCopyBufferLayout {
                    offset: 0,
                    bytes_per_row: Some(self.padded_row),
                    rows_per_image: Some(self.height),
                },
            },
            wgpu::Extent3d {
                width: self.width,
                height: self.height,
                depth_or_array_layers: 1,
            },
        );
        self.renderer.queue().submit([encoder.finish()]);
        let slice = self.readback.slice(..);
        let (tx, rx) = std::sync::mpsc::channel();
        slice.map_async(wgpu::MapMode::Read, move |r| {
            let _ = tx.send(r);
        });
        self.renderer
            .device()
            .poll(wgpu::PollType::wait_indefinitely())
            .map_err(|e| RenderError::Readback(e.to_string()))?;
        rx.recv()
            .map_err(|e| RenderError::Readback(e.to_string()))?
            .map_err(|e| RenderError::Readback(e.to_string()))?;
        let mut out = Vec::with_capacity((self.width * self.height * 4) as usize);
        {
            let data = slice
                .get_mapped_range()
                .map_err(|e| RenderError::Readback(e.to_string()))?;
            for row in 0..self.height as usize {
                let start = row * self.padded_row as usize;
                out.extend_from_slice(&data[start..start + self.width as usize * 4]);
            }
        }
        self.readback.unmap();
        Ok(out)
    }
}

/// Writes RGBA8 pixels as a PNG.
pub(crate) fn write_png(
    path: &Path,
    width: u32,
    height: u32,
    rgba: &[u8],
) -> Result<(), RenderError> {
    let file = std::fs::File::create(path)
        .map_err(|e| RenderError::Io(format!("{}: {e}", path.display())))?;
    let mut enc = png::Encoder::new(std::io::BufWriter::new(file), width, height);
    enc.set_color(png::ColorType::Rgba);
    enc.set_depth(png::BitDepth::Eight);
    let mut w = enc
        .write_header()
        .map_err(|e| RenderError::Io(format!("{}: {e}", path.display())))?;
    w.write_image_data(rgba)
        .map_err(|e| RenderError::Io(format!("{}: {e}", path.display())))?;
    Ok(())
}
