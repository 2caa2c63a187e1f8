//! `skitter pack` and `skitter install`: a mod folder to a package, a package into the user
//! mods folder (the checks are `skitter::script::package`'s).

use std::path::PathBuf;
use std::process::ExitCode;

use skitter::script::package;

/// `skitter pack`'s options.
#[derive(clap::Args)]
pub(crate) struct PackArgs {
    /// The mod folder to pack.
    #[arg(value_name = "MOD_DIR")]
    dir: PathBuf,
    /// Where to write NAME-VERSION.zip (default: the current folder).
    #[arg(long, short, value_name = "DIR", default_value = ".")]
    out: PathBuf,
}

/// `skitter install`'s options.
#[derive(clap::Args)]
pub(crate) struct InstallArgs {
    /// The package to install.
    #[arg(value_name = "FILE.zip")]
    file: PathBuf,
    /// The mods folder to install into (default: the user mods folder,
    /// $XDG_DATA_HOME/skitter/mods).
    #[arg(long, value_name = "DIR")]
    mods_path: Option<PathBuf>,
    /// Largest file the package may hold, in MiB.
    #[arg(long, default_value_t = skitter::model::DEFAULT_MAX_ASSET_MB, value_name = "MIB")]
    max_asset_mb: u64,
}

pub(crate) fn pack_cmd(args: PackArgs, out: &mut impl std::io::Write) -> anyhow::Result<ExitCode> {
    match package::pack(&args.dir, &args.out) {
        Ok(p) => {
            for (file, why) in &p.skipped {
                writeln!(out, "left out {file}: {why}")?;
            }
            writeln!(
                out,
                "packed {} file(s) into {}",
                p.files.len(),
                p.path.display()
            )?;
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => {
            eprintln!("error: {e}");
            Ok(ExitCode::FAILURE)
        }
    }
}

pub(crate) fn install_cmd(
    args: InstallArgs,
    out: &mut impl std::io::Write,
) -> anyhow::Result<ExitCode> {
    let Some(mods) = args.mods_path.or_else(crate::user_mods_folder) else {
        eprintln!("error: no user mods folder (set XDG_DATA_HOME or HOME, or give --mods-path)");
        return Ok(ExitCode::FAILURE);
    };
    match package::install(&args.file, &mods, args.max_asset_mb.saturating_mul(1 << 20)) {
        Ok(dir) => {
            writeln!(
                out,
                "installed {} into {}",
                args.file.display(),
                dir.display()
            )?;
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => {
            eprintln!("error: {e}");
            Ok(ExitCode::FAILURE)
        }
    }
}
