//! Put the git commit into `pakrat --version` when built from a checkout.

use std::process::Command;

fn main() {
    let git = |args: &[&str]| {
        Command::new("git")
            .args(args)
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
    };
    let suffix = match git(&["rev-parse", "--short=12", "HEAD"]) {
        Some(commit) if !commit.is_empty() => {
            let dirty = git(&["status", "--porcelain", "--untracked-files=no"])
                .is_some_and(|s| !s.is_empty());
            format!(" (git {commit}{})", if dirty { ", modified" } else { "" })
        }
        _ => String::new(),
    };
    println!("cargo:rustc-env=PAKRAT_GIT_SUFFIX={suffix}");
    // Rebuild when the checked-out commit changes.
    if let Some(dir) = git(&["rev-parse", "--git-dir"]) {
        let dir = std::path::PathBuf::from(dir);
        for p in ["HEAD", "refs/heads", "packed-refs", "index"] {
            println!("cargo:rerun-if-changed={}", dir.join(p).display());
        }
    }
    println!("cargo:rerun-if-changed=build.rs");
}
