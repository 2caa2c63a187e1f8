//! The binder's errors, pass by pass: a bone a define names that the model lacks
//! ([`NoSuchBone`]), limbs named in `model.bind` that are no chain ([`ChainError`]), no legs
//! to be found ([`LegsError`]), and what `bind` returns ([`BindError`]). Each says what was
//! wrong and what to write, as the define's error.

/// A bone named in `model.bind` (`field`) that the model lacks, with the nearest name
/// there is when one is near.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{field}: no bone \"{name}\" in the model{}", near.as_ref().map(|n| format!(" (did you mean \"{n}\"?)")).unwrap_or_default())]
pub struct NoSuchBone {
    /// Where it was named (`model.bind.legs.L1`).
    pub field: String,
    /// The name given.
    pub name: String,
    /// The model's bone nearest that name (a few edits away).
    pub near: Option<String>,
}

/// Limbs named in `model.bind.legs` or `model.bind.arms` that make no chain.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ChainError {
    /// A limb named with no bones.
    #[error("model.bind.{what}.{name}: needs at least one bone")]
    Empty {
        /// `legs` or `arms`.
        what: &'static str,
        /// The limb's name.
        name: String,
    },
    /// A bone the model lacks.
    #[error(transparent)]
    Bone(#[from] NoSuchBone),
    /// Two bones listed one after the other where the second does not hang from the first.
    #[error("model.bind.{what}.{name}: \"{child}\" does not hang from \"{parent}\"")]
    Broken {
        /// `legs` or `arms`.
        what: &'static str,
        /// The limb's name.
        name: String,
        /// The bone listed first.
        parent: String,
        /// The bone listed after it.
        child: String,
    },
}

/// No legs: none named, none ending on the ground and no chains mirrored across the body.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("model: no legs found (no chain of two or more bones ends on the ground, and no chains mirror each other across the body); name them in model.bind.legs. Bones: {}", bones.join(", "))]
pub struct NoLegs {
    /// Every bone of the model, in order.
    pub bones: Vec<String>,
}

/// The legs pass: the named legs' chains, or none found.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum LegsError {
    /// A leg named in `model.bind.legs` is no chain.
    #[error(transparent)]
    Given(#[from] ChainError),
    /// None found.
    #[error(transparent)]
    None(#[from] NoLegs),
}

/// Why a model binds to no creature.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum BindError {
    /// The legs pass.
    #[error(transparent)]
    Legs(#[from] LegsError),
    /// The arms named in `model.bind.arms`.
    #[error(transparent)]
    Arms(#[from] ChainError),
    /// The body or head bone named in `model.bind`.
    #[error(transparent)]
    Bone(#[from] NoSuchBone),
    /// The legs' tips are above their hips (the model lies upside down).
    #[error("model: the legs' tips are not below the hips (is the model upside down? set model.rotation)")]
    UpsideDown,
}
