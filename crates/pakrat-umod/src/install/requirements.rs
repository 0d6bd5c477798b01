//! Requirements: the products and versions a UMOD needs in the game folder.

use std::path::Path;

use pakrat_io::ini::Ini;

use super::record::atoi;
use super::RequirementCheck;
use crate::create::find_source;
use crate::manifest::Manifest;

/// Check every requirement of `m` against the game folder.
pub fn check_requirements(
    m: &Manifest,
    game_dir: &Path,
    game_ini: Option<&Ini>,
) -> Vec<RequirementCheck> {
    m.requirements
        .iter()
        .map(|r| {
            let mut product = r.product.clone().unwrap_or_default();
            if product == "Unreal Tournament" {
                product = "UnrealTournament".into(); // as CheckRequirement does
            }
            let required = r.version.clone().unwrap_or_default();
            let mut found = game_ini
                .and_then(|i| i.get(&product, "Version"))
                .map(str::to_string);
            let mut via = String::new();
            if found.is_none() {
                if let Some(check) = &r.old_version_install_check {
                    let present = find_source(game_dir, check)
                        .ok()
                        .and_then(|p| std::fs::metadata(p).ok())
                        .is_some_and(|m| m.len() > 0);
                    if present {
                        found = Some(r.old_version_number.clone().unwrap_or_default());
                        via = format!(" (from the presence of {check})");
                    }
                }
            }
            let (ok, message) = match &found {
                None => (
                    false,
                    format!(
                        "requires {product} {required}, which is not installed here (no [{product}] Version= in System\\Manifest.ini)"
                    ),
                ),
                Some(v) if atoi(v) < atoi(&required) => (
                    false,
                    format!("requires {product} version {required} or later; version {v} is installed{via}"),
                ),
                Some(v) => (
                    true,
                    if required.is_empty() {
                        format!("{product} is installed (version {v}{via}); any version will do")
                    } else {
                        format!("{product} version {v} is installed{via}; {required} is required")
                    },
                ),
            };
            RequirementCheck {
                section: r.section.clone(),
                product,
                required,
                found,
                ok,
                message,
            }
        })
        .collect()
}
