//! `pakrat package headers`: `<Package>Classes.h` from a UE1/UE2 package.

use std::process::ExitCode;

use anyhow::{bail, Result};
use serde::Serialize;

use crate::args_headers::HeadersArgs;
use crate::cmd::common::{in_file, parse_package};
use pakrat_classic::headers::{self, FieldKind, Form, Options};

/// What `--json` prints.
#[derive(Serialize)]
struct Report {
    file: String,
    package: String,
    form: &'static str,
    classes: usize,
    native_classes: usize,
    members: usize,
    native_functions: usize,
    events: usize,
    /// Fields whose data did not parse: `Class.Field: why`.
    unreadable: Vec<String>,
}

/// `pakrat package headers`.
pub fn headers(a: &HeadersArgs) -> Result<ExitCode> {
    let src = pakrat_classic::lineage::open(&a.package).map_err(|e| in_file(e, &a.package))?;
    let pkg = parse_package(&a.package, &src)?;
    let name = match &a.name {
        Some(n) => n.clone(),
        None => a
            .package
            .file_stem()
            .map_or_else(String::new, |s| s.to_string_lossy().into_owned()),
    };
    if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        bail!("package name {name:?} is not a C++ identifier: give one with --name");
    }
    let h = headers::collect(&pkg, &name).map_err(|e| in_file(e, &a.package))?;
    let inc = a.inc.clone();
    let has_include = move |file: &str| inc.as_ref().is_some_and(|d| d.join(file).is_file());
    let opts = Options {
        has_include: &has_include,
    };
    let text = headers::render(&h, &opts);
    let out = pakrat_io::fsutil::OutputDir::create(&a.output, a.force)?;
    let file = format!("{name}Classes.h");
    let path = out.write(&file, text.as_bytes())?;
    let exported: Vec<_> = h.classes.iter().filter(|c| headers::exported(c)).collect();
    let mut unreadable = Vec::new();
    for c in &h.classes {
        for f in &c.fields {
            if let FieldKind::Unreadable(n, why) = f {
                unreadable.push(format!("{}.{n}: {why}", c.name));
            }
        }
    }
    let r = Report {
        file: path.display().to_string(),
        package: name,
        form: match h.form {
            Form::Ue1 => "UE1",
            Form::Ue2 => "UE2",
        },
        classes: h.classes.len(),
        native_classes: exported.len(),
        members: exported.iter().map(|c| c.members().count()).sum(),
        native_functions: exported.iter().map(|c| c.natives().count()).sum(),
        events: exported.iter().map(|c| c.events().count()).sum(),
        unreadable,
    };
    if a.out.json {
        crate::output::print_json(&r)?;
    } else {
        println!(
            "{}: {} form, {} classes ({} native), {} members, {} native functions, {} events",
            r.file, r.form, r.classes, r.native_classes, r.members, r.native_functions, r.events
        );
        for u in &r.unreadable {
            eprintln!("warning: field not read: {u}");
        }
    }
    Ok(if r.unreadable.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
