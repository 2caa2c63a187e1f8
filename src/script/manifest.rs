//! Mod manifests (`mod.toml`) and load order: dependency order, then name; missing
//! dependencies, version mismatches, cycles and duplicate names are errors that name them.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use semver::{Version, VersionReq};
use serde::Deserialize;

use super::convert::nearest_name;

/// Why a dependency string does not parse.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum DependencyError {
    /// No mod name at the start.
    #[error("dependency \"{0}\" does not start with a mod name")]
    NoName(String),
    /// The version requirement is not semver.
    #[error("dependency \"{dep}\": bad version requirement \"{req}\": {message}")]
    BadRequirement {
        /// The dependency as written.
        dep: String,
        /// Its requirement part.
        req: String,
        /// What semver said.
        message: String,
    },
}

/// Why a `mod.toml` cannot be used: the file, and what is wrong.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ManifestError {
    /// The file could not be read.
    #[error("{dir}: cannot read mod.toml: {message}")]
    Read {
        /// The mod folder.
        dir: String,
        /// What the file system said.
        message: String,
    },
    /// The file says something wrong.
    #[error("{file}: {message}")]
    Invalid {
        /// The manifest's path.
        file: String,
        /// What is wrong.
        message: String,
    },
    /// The file is not valid TOML (or names an unknown key), at `line`:`column`.
    #[error("{file}:{line}:{column}: {message}")]
    Syntax {
        /// The manifest's path.
        file: String,
        /// Line of the error (1-based).
        line: usize,
        /// Column of the error (1-based, in characters).
        column: usize,
        /// What the TOML parser said.
        message: String,
    },
}

/// A dependency: a mod name and a semver requirement; optional ones start with `?`.
#[derive(Clone, Debug, PartialEq)]
pub struct Dependency {
    /// Mod name.
    pub name: String,
    /// Required versions.
    pub req: VersionReq,
    /// A missing optional dependency is not an error.
    pub optional: bool,
}

impl Dependency {
    /// Parses `"arena >= 0.1"`, `"?decor >= 1"` or a bare `"arena"` (any version).
    pub fn parse(s: &str) -> Result<Dependency, DependencyError> {
        let s = s.trim();
        let (optional, rest) = match s.strip_prefix('?') {
            Some(r) => (true, r.trim_start()),
            None => (false, s),
        };
        let end = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-'))
            .unwrap_or(rest.len());
        let name = &rest[..end];
        if name.is_empty() {
            return Err(DependencyError::NoName(s.to_string()));
        }
        let req_text = rest[end..].trim();
        let req = if req_text.is_empty() {
            VersionReq::STAR
        } else {
            VersionReq::parse(req_text).map_err(|e| DependencyError::BadRequirement {
                dep: s.to_string(),
                req: req_text.to_string(),
                message: e.to_string(),
            })?
        };
        Ok(Dependency {
            name: name.to_string(),
            req,
            optional,
        })
    }
}

#[derive(Deserialize)]
struct RawManifest {
    name: String,
    version: String,
    #[serde(default)]
    description: String,
    #[serde(default)]
    entry: Option<String>,
    #[serde(default)]
    depends: Vec<String>,
    #[serde(default)]
    authors: Vec<String>,
    #[serde(default)]
    license: Option<String>,
    #[serde(default)]
    homepage: Option<String>,
    #[serde(default)]
    repository: Option<String>,
    #[serde(default)]
    tags: Vec<String>,
    /// Keys skitter does not know: a warning each, never a failure.
    #[serde(flatten)]
    unknown: BTreeMap<String, toml::Value>,
}

/// Metadata a mod may carry for the people who find it (skitter only shows it).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ModInfo {
    /// Who wrote it.
    pub authors: Vec<String>,
    /// Its licence (an SPDX expression, by convention).
    pub license: Option<String>,
    /// Its web page.
    pub homepage: Option<String>,
    /// Where its source lives.
    pub repository: Option<String>,
    /// Words to find it by.
    pub tags: Vec<String>,
}

/// A parsed `mod.toml`.
#[derive(Clone, Debug, PartialEq)]
pub struct Manifest {
    /// Mod name (letters, digits, `_`, `-`).
    pub name: String,
    /// Version.
    pub version: Version,
    /// One-line description.
    pub description: String,
    /// Entry script, relative to the mod folder (default `main.lua`).
    pub entry: String,
    /// Dependencies.
    pub depends: Vec<Dependency>,
    /// The mod folder.
    pub dir: PathBuf,
    /// Authors, licence, links, tags.
    pub info: ModInfo,
    /// What was read but is worth saying: unknown keys (ignored), a version completed
    /// (`1.2` read as `1.2.0`).
    pub warnings: Vec<String>,
}

impl Manifest {
    /// Reads `dir/mod.toml`. Errors name the file.
    pub fn load(dir: &Path) -> Result<Manifest, ManifestError> {
        let path = dir.join("mod.toml");
        let text = std::fs::read_to_string(&path).map_err(|e| ManifestError::Read {
            dir: dir.display().to_string(),
            message: e.to_string(),
        })?;
        Self::parse(&text, dir)
    }

    /// Parses manifest text for the mod in `dir`.
    pub fn parse(text: &str, dir: &Path) -> Result<Manifest, ManifestError> {
        let invalid = |message: String| ManifestError::Invalid {
            file: dir.join("mod.toml").display().to_string(),
            message,
        };
        let raw: RawManifest = toml::from_str(text).map_err(|e| {
            let (line, column) = e
                .span()
                .map(|s| line_column(text, s.start))
                .unwrap_or((1, 1));
            ManifestError::Syntax {
                file: dir.join("mod.toml").display().to_string(),
                line,
                column,
                message: e.message().trim().to_string(),
            }
        })?;
        if raw.name.is_empty()
            || !raw
                .name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        {
            return Err(invalid(format!(
                "name \"{}\" must be letters, digits, '_' or '-'",
                raw.name
            )));
        }
        let mut warnings: Vec<String> = raw
            .unknown
            .keys()
            .map(|k| {
                let near = nearest_name(k, MANIFEST_KEYS, 2.max(k.len() / 3))
                    .map(|c| format!("did you mean \"{c}\"? "))
                    .unwrap_or_default();
                format!(
                    "unknown key \"{k}\" ({near}ignored; known: {})",
                    MANIFEST_KEYS.join(", ")
                )
            })
            .collect();
        // `1.2` and `1` are read as `1.2.0` and `1.0.0`, and said so.
        let written = raw.version.trim();
        let parts = written.split('.').count();
        let completed = if (1..3).contains(&parts)
            && written
                .split('.')
                .all(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_digit()))
        {
            let full = format!("{written}{}", ".0".repeat(3 - parts));
            warnings.push(format!("version \"{written}\" read as {full}"));
            full
        } else {
            written.to_string()
        };
        let version = Version::parse(&completed)
            .map_err(|e| invalid(format!("version \"{}\": {e}", raw.version)))?;
        let depends = raw
            .depends
            .iter()
            .map(|d| Dependency::parse(d).map_err(|e| invalid(e.to_string())))
            .collect::<Result<Vec<_>, _>>()?;
        let entry = raw.entry.unwrap_or_else(|| "main.lua".to_string());
        if entry.contains("..") || Path::new(&entry).is_absolute() {
            return Err(invalid(format!(
                "entry \"{entry}\" must be a path inside the mod folder"
            )));
        }
        Ok(Manifest {
            name: raw.name,
            version,
            description: raw.description,
            entry,
            depends,
            dir: dir.to_path_buf(),
            info: ModInfo {
                authors: raw.authors,
                license: raw.license,
                homepage: raw.homepage,
                repository: raw.repository,
                tags: raw.tags,
            },
            warnings,
        })
    }
}

/// The 1-based line and column (in characters) of byte `at` in `text`.
/// The keys a `mod.toml` may have.
pub const MANIFEST_KEYS: [&str; 10] = [
    "name",
    "version",
    "description",
    "entry",
    "depends",
    "authors",
    "license",
    "homepage",
    "repository",
    "tags",
];

fn line_column(text: &str, at: usize) -> (usize, usize) {
    let before = &text[..at.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}

/// Orders manifests for loading: every mod after its (present) dependencies, ties by name.
/// Returns the order and the errors of mods that cannot load (they are left out, and so are
/// the mods that need them); `why_missing(name)` is added to the error of a dependency not
/// there (where it was looked for).
pub(super) fn load_order(
    manifests: Vec<Manifest>,
    why_missing: &dyn Fn(&str) -> String,
) -> (Vec<Manifest>, Vec<(String, String)>) {
    let mut errors: Vec<(String, String)> = Vec::new();
    let mut by_name: BTreeMap<String, Manifest> = BTreeMap::new();
    for m in manifests {
        if let Some(first) = by_name.get(&m.name) {
            errors.push((
                m.name.clone(),
                format!(
                    "two mods are named \"{}\": {} and {}",
                    m.name,
                    first.dir.display(),
                    m.dir.display()
                ),
            ));
            continue;
        }
        by_name.insert(m.name.clone(), m);
    }
    // Drop mods whose required dependencies are missing or mismatched, until stable.
    loop {
        let mut bad: Vec<(String, String)> = Vec::new();
        for m in by_name.values() {
            for d in &m.depends {
                match by_name.get(&d.name) {
                    None if d.optional => {}
                    None => bad.push((
                        m.name.clone(),
                        format!(
                            "mod \"{}\" needs \"{}\" ({}), which is not loaded{}",
                            m.name,
                            d.name,
                            d.req,
                            why_missing(&d.name)
                        ),
                    )),
                    Some(dep) if !d.req.matches(&dep.version) => bad.push((
                        m.name.clone(),
                        format!(
                            "mod \"{}\" needs \"{}\" {}, but {} is loaded",
                            m.name, d.name, d.req, dep.version
                        ),
                    )),
                    Some(_) => {}
                }
            }
        }
        if bad.is_empty() {
            break;
        }
        for (name, msg) in bad {
            if by_name.remove(&name).is_some() {
                errors.push((name, msg));
            }
        }
    }
    // Kahn's algorithm, smallest name first.
    let mut order = Vec::new();
    let mut done: BTreeSet<String> = BTreeSet::new();
    while done.len() < by_name.len() {
        let next = by_name.values().find(|m| {
            !done.contains(&m.name)
                && m.depends
                    .iter()
                    .all(|d| done.contains(&d.name) || !by_name.contains_key(&d.name))
        });
        match next {
            Some(m) => {
                done.insert(m.name.clone());
                order.push(m.clone());
            }
            None => {
                let stuck: Vec<String> = by_name
                    .keys()
                    .filter(|n| !done.contains(*n))
                    .cloned()
                    .collect();
                for n in &stuck {
                    errors.push((
                        n.clone(),
                        format!("dependency cycle among mods: {}", stuck.join(" -> ")),
                    ));
                }
                break;
            }
        }
    }
    (order, errors)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(name: &str, version: &str, deps: &[&str]) -> Manifest {
        let deps: Vec<String> = deps.iter().map(|d| format!("\"{d}\"")).collect();
        Manifest::parse(
            &format!(
                "name = \"{name}\"\nversion = \"{version}\"\ndepends = [{}]\n",
                deps.join(",")
            ),
            Path::new(name),
        )
        .expect("valid")
    }

    fn names(v: &[Manifest]) -> Vec<&str> {
        v.iter().map(|m| m.name.as_str()).collect()
    }

    #[test]
    fn toml_errors_say_line_and_column() {
        let e = Manifest::parse(
            "name = \"a\"\nversion = \"1.0.0\"\ndepends = [\"x\"\n",
            Path::new("m"),
        )
        .expect_err("unclosed array");
        let ManifestError::Syntax { line, column, .. } = &e else {
            panic!("{e:?}");
        };
        assert!(*line >= 3, "{e}");
        assert!(
            e.to_string()
                .starts_with(&format!("m/mod.toml:{line}:{column}: ")),
            "{e}"
        );
        let e = Manifest::parse("name = \"a\"\nversion = [1, 0]\n", Path::new("m"))
            .expect_err("a version that is not a string");
        assert!(e.to_string().starts_with("m/mod.toml:2:"), "{e}");
    }

    #[test]
    fn parses_dependencies() {
        let d = Dependency::parse("?decor >= 1").expect("ok");
        assert!(d.optional && d.name == "decor" && d.req.matches(&Version::new(1, 2, 0)));
        let d = Dependency::parse("arena").expect("ok");
        assert!(!d.optional && d.req == VersionReq::STAR);
        assert!(Dependency::parse(">= 1").is_err());
        assert!(Dependency::parse("x >= banana").is_err());
    }

    #[test]
    fn orders_by_dependency_then_name() {
        let (order, errs) = load_order(
            vec![
                m("spider", "0.1.0", &["arena >= 0.1"]),
                m("arena", "0.1.0", &[]),
                m("bee", "1.0.0", &[]),
            ],
            &|_| String::new(),
        );
        assert!(errs.is_empty(), "{errs:?}");
        assert_eq!(names(&order), vec!["arena", "bee", "spider"]);
    }

    #[test]
    fn reports_missing_mismatch_cycle_duplicate() {
        let (order, errs) = load_order(
            vec![
                m("a", "1.0.0", &["missing >= 1"]),
                m("b", "1.0.0", &["c >= 2"]),
                m("c", "1.0.0", &[]),
                m("d", "1.0.0", &["e"]),
                m("e", "1.0.0", &["d"]),
                m("c", "1.1.0", &[]),
                m("f", "1.0.0", &["?missing"]),
            ],
            &|_| String::new(),
        );
        assert_eq!(names(&order), vec!["c", "f"]);
        let all: Vec<String> = errs.iter().map(|(_, e)| e.clone()).collect();
        let text = all.join("\n");
        assert!(text.contains("needs \"missing\""), "{text}");
        assert!(
            text.contains("needs \"c\" >=2, but 1.0.0 is loaded")
                || text.contains("needs \"c\" >= 2"),
            "{text}"
        );
        assert!(text.contains("cycle") && text.contains("d -> e"), "{text}");
        assert!(text.contains("two mods are named \"c\""), "{text}");
    }

    #[test]
    fn rejects_bad_manifests() {
        assert!(Manifest::parse("name = \"x\"\n", Path::new("x")).is_err());
        assert!(Manifest::parse("name = \"x y\"\nversion = \"1.0.0\"", Path::new("x")).is_err());
        assert!(Manifest::parse(
            "name = \"x\"\nversion = \"1.0.0\"\nentry = \"../evil.lua\"",
            Path::new("x")
        )
        .is_err());
        assert!(Manifest::parse("name = \"x\"\nversion = \"1.x\"", Path::new("x")).is_err());
    }

    #[test]
    fn metadata_is_read_unknown_keys_warn_and_short_versions_complete() {
        let m = Manifest::parse(
            "name = \"x\"\nversion = \"1.2\"\nauthors = [\"Ann\"]\nlicense = \"MIT\"\ntags = [\"bugs\"]\ncolour = 1\n",
            Path::new("x"),
        )
        .expect("valid");
        assert_eq!(m.version, Version::new(1, 2, 0));
        assert_eq!(m.info.authors, ["Ann"]);
        assert_eq!(m.info.license.as_deref(), Some("MIT"));
        assert_eq!(m.info.tags, ["bugs"]);
        assert_eq!(m.warnings.len(), 2, "{:?}", m.warnings);
        assert!(m.warnings.iter().any(|w| w.contains("\"colour\"")));
        assert!(m.warnings.iter().any(|w| w.contains("read as 1.2.0")));
        let whole =
            Manifest::parse("name = \"x\"\nversion = \"3\"\n", Path::new("x")).expect("valid");
        assert_eq!(whole.version, Version::new(3, 0, 0));
    }

    #[test]
    fn a_mistyped_key_gets_a_did_you_mean() {
        let m = Manifest::parse(
            "name = \"x\"\nversion = \"1.0.0\"\nentri = \"boot.lua\"\ndepend = [\"a\"]\n",
            Path::new("x"),
        )
        .expect("valid");
        let all = m.warnings.join("\n");
        assert!(
            all.contains("unknown key \"entri\" (did you mean \"entry\"? ignored;"),
            "{all}"
        );
        assert!(
            all.contains("\"depend\" (did you mean \"depends\"?"),
            "{all}"
        );
        assert!(
            !m.warnings[0].contains("colour") && !all.contains("\"colour\" (did"),
            "{all}"
        );
    }
}
