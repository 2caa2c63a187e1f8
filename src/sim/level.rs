//! Static level pieces as plain descriptions (ground heightfield, boxes, stairs), their
//! validation, and their conversion into rapier colliders.

use glam::{Quat, Vec3};
use rapier3d::prelude::{ColliderBuilder, ColliderHandle, ColliderSet};

use crate::locomotion::def::{finite, finite_vec, positive};
use crate::locomotion::DefError;
use crate::math::frame::{rotation_from_pitch_yaw_roll_deg, yaw_rotation};
use crate::math::noise;

/// Largest ground side, metres.
const MAX_GROUND_SIZE: f32 = 4096.0;
/// Largest number of ground samples along one side.
const MAX_SAMPLES: usize = 1025;
/// Cell size used for noise ground, metres.
const NOISE_CELL: f32 = 0.5;

/// Where the ground heights come from.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum HeightSource {
    /// Level at the ground's y.
    Flat,
    /// Explicit heights: `rows[i][j]`, row i along +z, column j along +x, evenly spread over the size.
    Grid(Vec<Vec<f32>>),
    /// Seeded fractal noise.
    Noise {
        /// Peak deviation, metres.
        amplitude: f32,
        /// Feature size, metres.
        scale: f32,
        /// Seed.
        seed: u32,
    },
}

/// The ground heightfield: centred on `position`, `size` = (width along x, depth along z).
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct GroundDesc {
    /// Centre of the ground; heights are added to its y.
    pub position: Vec3,
    /// Width (x) and depth (z), metres.
    pub width: f32,
    /// Depth (z), metres.
    pub depth: f32,
    /// Heights.
    pub heights: HeightSource,
    /// Its name and surface (`name =`, `surface =`): what a foot that lands on it is told.
    #[serde(default)]
    pub tag: PieceTag,
}

/// The ground as sampled: a regular grid of heights.
#[derive(Clone, Debug, PartialEq)]
pub struct GroundGrid {
    /// World position of sample (0, 0) (the −x, −z corner).
    pub origin: Vec3,
    /// Samples along x.
    pub nx: usize,
    /// Samples along z.
    pub nz: usize,
    /// Spacing along x, metres.
    pub dx: f32,
    /// Spacing along z, metres.
    pub dz: f32,
    /// Heights relative to `origin.y`, row-major: `heights[iz * nx + ix]`.
    pub heights: Vec<f32>,
    /// The ground's name and surface.
    pub tag: PieceTag,
}

/// A static box: `position` = centre, `size` = full extents, rotation pitch/yaw/roll degrees.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct BoxDesc {
    /// Centre, world space.
    pub position: Vec3,
    /// Full extents.
    pub size: Vec3,
    /// `vec3(pitch, yaw, roll)` in degrees.
    pub rotation: Vec3,
    /// Its name and surface (`name =`, `surface =`): what a foot that lands on it is told.
    #[serde(default)]
    pub tag: PieceTag,
}

/// A level piece's name and the surface it is made of (`world.box{ name = "crate", surface =
/// "wood" }`): an `on_step` foot says what it landed on.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct PieceTag {
    /// The piece's name.
    pub name: Option<String>,
    /// What it is made of (`stone`, `wood`, `metal`: any word).
    pub surface: Option<String>,
}

/// Static stairs rising along their forward (+Z turned by `yaw`); `position` = centre of the bottom edge.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct StairsDesc {
    /// Centre of the bottom edge.
    pub position: Vec3,
    /// Degrees.
    pub yaw: f32,
    /// Number of steps.
    pub steps: u32,
    /// Rise per step, metres.
    pub step_height: f32,
    /// Run per step, metres.
    pub step_depth: f32,
    /// Width, metres.
    pub width: f32,
    /// Its name and surface (`name =`, `surface =`): what a foot that lands on it is told.
    #[serde(default)]
    pub tag: PieceTag,
}

impl GroundDesc {
    /// Validates and samples the ground.
    pub fn sample(&self) -> Result<GroundGrid, DefError> {
        finite_vec("position", self.position)?;
        for (f, v) in [("size.x", self.width), ("size.z", self.depth)] {
            positive(f, v)?;
            if v > MAX_GROUND_SIZE {
                return Err(DefError::new(
                    f,
                    format!("must be <= {MAX_GROUND_SIZE} m, got {v}"),
                ));
            }
        }
        let origin = self.position - Vec3::new(self.width * 0.5, 0.0, self.depth * 0.5);
        let (nx, nz, heights) = match &self.heights {
            HeightSource::Flat => (2, 2, vec![0.0; 4]),
            HeightSource::Grid(rows) => {
                let nz = rows.len();
                let nx = rows.first().map(|r| r.len()).unwrap_or(0);
                if nz < 2 || nx < 2 {
                    return Err(DefError::new(
                        "heights",
                        format!("needs at least 2 rows of at least 2 heights, got {nz}×{nx}"),
                    ));
                }
                if nz > MAX_SAMPLES || nx > MAX_SAMPLES {
                    return Err(DefError::new(
                        "heights",
                        format!("has more than {MAX_SAMPLES} samples along a side"),
                    ));
                }
                let mut out = Vec::with_capacity(nx * nz);
                for (i, row) in rows.iter().enumerate() {
                    if row.len() != nx {
                        return Err(DefError::new(
                            format!("heights[{}]", i + 1),
                            format!("has {} heights, row 1 has {nx}", row.len()),
                        ));
                    }
                    for (j, h) in row.iter().enumerate() {
                        if !h.is_finite() {
                            return Err(DefError::new(
                                format!("heights[{}][{}]", i + 1, j + 1),
                                "must be a finite number",
                            ));
                        }
                        out.push(*h);
                    }
                }
                (nx, nz, out)
            }
            HeightSource::Noise {
                amplitude,
                scale,
                seed,
            } => {
                if !amplitude.is_finite() || *amplitude < 0.0 {
                    return Err(DefError::new(
                        "noise.amplitude",
                        format!("must be >= 0, got {amplitude}"),
                    ));
                }
                positive("noise.scale", *scale)?;
                let nx = ((self.width / NOISE_CELL).ceil() as usize + 1).clamp(2, MAX_SAMPLES);
                let nz = ((self.depth / NOISE_CELL).ceil() as usize + 1).clamp(2, MAX_SAMPLES);
                let (dx, dz) = (self.width / (nx - 1) as f32, self.depth / (nz - 1) as f32);
                let mut out = Vec::with_capacity(nx * nz);
                for iz in 0..nz {
                    for ix in 0..nx {
                        let (x, z) = (origin.x + ix as f32 * dx, origin.z + iz as f32 * dz);
                        out.push(amplitude * noise::fractal(x, z, *scale, *seed));
                    }
                }
                (nx, nz, out)
            }
        };
        Ok(GroundGrid {
            origin,
            nx,
            nz,
            dx: self.width / (nx - 1) as f32,
            dz: self.depth / (nz - 1) as f32,
            heights,
            tag: self.tag.clone(),
        })
    }
}

impl GroundGrid {
    /// The rapier heightfield collider for this grid.
    pub fn collider(&self) -> ColliderBuilder {
        // parry: rows advance along z, columns along x, column-major storage.
        let mut data = vec![0.0f32; self.nx * self.nz];
        for iz in 0..self.nz {
            for ix in 0..self.nx {
                data[iz + ix * self.nz] = self.heights[iz * self.nx + ix];
            }
        }
        let heights = rapier3d::parry::utils::Array2::new(self.nz, self.nx, data);
        let width = self.dx * (self.nx - 1) as f32;
        let depth = self.dz * (self.nz - 1) as f32;
        let centre = self.origin + Vec3::new(width * 0.5, 0.0, depth * 0.5);
        ColliderBuilder::heightfield(heights, Vec3::new(width, 1.0, depth)).translation(centre)
    }
}

impl BoxDesc {
    /// Validates the box.
    pub fn validate(&self) -> Result<(), DefError> {
        finite_vec("position", self.position)?;
        finite_vec("rotation", self.rotation)?;
        finite_vec("size", self.size)?;
        if self.size.min_element() <= 0.0 {
            return Err(DefError::new("size", "must have every component > 0"));
        }
        Ok(())
    }

    /// World rotation of the box.
    pub fn quat(&self) -> Quat {
        rotation_from_pitch_yaw_roll_deg(self.rotation)
    }

    fn collider(&self) -> ColliderBuilder {
        let h = self.size * 0.5;
        ColliderBuilder::cuboid(h.x, h.y, h.z)
            .position(rapier3d::math::Pose::from_parts(self.position, self.quat()))
    }
}

impl StairsDesc {
    /// Validates the stairs.
    pub fn validate(&self) -> Result<(), DefError> {
        finite_vec("position", self.position)?;
        finite("yaw", self.yaw)?;
        if self.steps == 0 || self.steps > 1000 {
            return Err(DefError::new(
                "steps",
                format!("must be between 1 and 1000, got {}", self.steps),
            ));
        }
        positive("step_height", self.step_height)?;
        positive("step_depth", self.step_depth)?;
        positive("width", self.width)?;
        Ok(())
    }

    /// The solid blocks the stairs are made of (block k spans the ground to the top of step k).
    pub fn blocks(&self) -> Vec<BoxDesc> {
        let rot = yaw_rotation(self.yaw.to_radians());
        (0..self.steps)
            .map(|k| {
                let top = (k + 1) as f32 * self.step_height;
                let local = Vec3::new(0.0, top * 0.5, (k as f32 + 0.5) * self.step_depth);
                BoxDesc {
                    tag: self.tag.clone(),
                    position: self.position + rot * local,
                    size: Vec3::new(self.width, top, self.step_depth),
                    rotation: Vec3::new(0.0, self.yaw, 0.0),
                }
            })
            .collect()
    }
}

/// The bit of a collider's `user_data` that marks a level piece (see
/// [`Level::build_colliders`]).
pub(crate) const LEVEL_PIECE: u128 = 1 << 100;

/// The whole static level as described; the World keeps it to rebuild colliders and for views.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Level {
    /// The ground, if any.
    pub ground: Option<GroundGrid>,
    /// Boxes, including the blocks of stairs.
    pub boxes: Vec<BoxDesc>,
    /// Stairs as described (their blocks are in `boxes`).
    pub stairs: Vec<StairsDesc>,
    /// Links (`world.link`), each with its kind's number.
    pub links: Vec<(super::LinkDesc, usize)>,
}

impl Level {
    /// The level as triangles for a navmesh bake: the ground's cells and every box.
    pub fn nav_input(&self) -> crate::nav::NavInput {
        let mut input = crate::nav::NavInput::default();
        if let Some(g) = &self.ground {
            let at = |ix: usize, iz: usize| {
                g.origin
                    + Vec3::new(
                        ix as f32 * g.dx,
                        g.heights[iz * g.nx + ix],
                        iz as f32 * g.dz,
                    )
            };
            for iz in 0..g.nz.saturating_sub(1) {
                for ix in 0..g.nx.saturating_sub(1) {
                    input.quad(
                        [
                            at(ix, iz),
                            at(ix + 1, iz),
                            at(ix + 1, iz + 1),
                            at(ix, iz + 1),
                        ],
                        Vec3::Y,
                    );
                }
            }
        }
        for b in &self.boxes {
            input.cuboid(b.position, b.size * 0.5, b.quat());
        }
        input.links = self
            .links
            .iter()
            .enumerate()
            .map(|(i, (l, kind))| crate::nav::LinkInput {
                id: i as u32,
                from: l.from,
                to: l.to,
                width: l.width,
                kind: *kind,
                cost: l.cost,
                bidirectional: l.bidirectional,
            })
            .collect();
        input
    }

    /// Rebuilds `colliders` from the level; the ground's collider, if there is a ground.
    /// Each collider's `user_data` says which piece it is (see [`Level::tag_of`]): the
    /// [`LEVEL_PIECE`] bit, and 0 for the ground or 1 + a box's index (a ragdoll part's is
    /// its creature's id + 1, below that bit: the two never meet).
    pub fn build_colliders(&self, colliders: &mut ColliderSet) -> Option<ColliderHandle> {
        let ground = self
            .ground
            .as_ref()
            .map(|g| colliders.insert(g.collider().user_data(LEVEL_PIECE)));
        for (i, b) in self.boxes.iter().enumerate() {
            colliders.insert(b.collider().user_data(LEVEL_PIECE | (1 + i as u128)));
        }
        ground
    }

    /// The name and surface of the piece whose collider has `user_data` (see
    /// [`Level::build_colliders`]); `None` for anything else.
    pub fn tag_of(&self, user_data: u128) -> Option<&PieceTag> {
        if user_data & LEVEL_PIECE == 0 {
            return None;
        }
        match (user_data & !LEVEL_PIECE) as usize {
            0 => self.ground.as_ref().map(|g| &g.tag),
            n => self.boxes.get(n - 1).map(|b| &b.tag),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ground_grids_validate() {
        let g = GroundDesc {
            tag: Default::default(),
            position: Vec3::ZERO,
            width: 10.0,
            depth: 6.0,
            heights: HeightSource::Flat,
        };
        let s = g.sample().expect("flat");
        assert_eq!((s.nx, s.nz), (2, 2));
        let bad = GroundDesc {
            tag: Default::default(),
            heights: HeightSource::Grid(vec![vec![0.0, 1.0], vec![0.0]]),
            ..g.clone()
        };
        assert_eq!(
            bad.sample().err().map(|e| e.field),
            Some("heights[2]".to_string())
        );
        let noisy = GroundDesc {
            tag: Default::default(),
            heights: HeightSource::Noise {
                amplitude: 0.5,
                scale: 4.0,
                seed: 3,
            },
            ..g.clone()
        };
        let s = noisy.sample().expect("noise");
        assert_eq!((s.nx, s.nz), (21, 13));
        assert!(s.heights.iter().all(|h| h.abs() <= 0.5));
        let neg = GroundDesc { width: -1.0, ..g };
        assert_eq!(
            neg.sample().err().map(|e| e.field),
            Some("size.x".to_string())
        );
    }

    #[test]
    fn stairs_blocks_rise_along_yawed_forward() {
        let s = StairsDesc {
            tag: Default::default(),
            position: Vec3::ZERO,
            yaw: 90.0,
            steps: 3,
            step_height: 0.2,
            step_depth: 0.4,
            width: 2.0,
        };
        s.validate().expect("valid");
        let b = s.blocks();
        assert_eq!(b.len(), 3);
        assert!(
            (b[2].position.x - 1.0).abs() < 1e-5,
            "third block centre 1.0 m along +x: {}",
            b[2].position
        );
        assert!((b[2].size.y - 0.6).abs() < 1e-6);
    }
}

/// A level piece as it was described (what a viewer is sent to build the level again).
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum PieceDesc {
    /// `world.ground`.
    Ground(GroundDesc),
    /// `world.box`.
    Box(BoxDesc),
    /// `world.stairs`.
    Stairs(StairsDesc),
    /// `world.link`.
    Link(crate::sim::LinkDesc),
}
