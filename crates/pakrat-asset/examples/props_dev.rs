//! Dev-only: decode a legacy package's exports (temporary).
use pakrat_asset::legacy::LegacyPackage;
use pakrat_asset::props::*;

fn main() {
    let path = std::env::args().nth(1).unwrap();
    let asset_bytes = std::fs::read(&path).unwrap();
    let uexp = std::fs::read(path.replace(".uasset", ".uexp").replace(".umap", ".uexp")).ok();
    let pkg = LegacyPackage::read(
        &asset_bytes,
        pakrat_asset::legacy::Layout::for_engine("5.8"),
    )
    .unwrap();
    let names: Vec<String> = pkg.names.iter().map(|n| n.text.clone()).collect();
    let imports = (0..pkg.imports.len())
        .map(|i| {
            let idx = -(i as i32) - 1;
            ObjectInfo {
                path: pkg.path(idx).unwrap_or_default(),
                class: pkg.class_path(idx).unwrap_or_default(),
            }
        })
        .collect();
    let exports = (0..pkg.exports.len())
        .map(|i| {
            let idx = i as i32 + 1;
            let e = &pkg.exports[i];
            ExportInfo {
                name: pkg.object_name(idx).unwrap_or_default(),
                path: pkg.path(idx).unwrap_or_default(),
                class: pkg.class_path(idx).unwrap_or_default(),
                outer: None,
                super_struct: None,
                template: None,
                object_flags: e.object_flags,
                offset: e.serial_offset as u64,
                data: pkg.export_data(i, &asset_bytes, uexp.as_deref()).unwrap(),
            }
        })
        .collect();
    let s = &pkg.summary;
    let asset = Asset {
        package: s.package_name.clone(),
        names,
        imports,
        exports,
        soft_object_paths: vec![],
        versions: Versions {
            ue4: if s.file_version_ue4 == 0 {
                522
            } else {
                s.file_version_ue4
            },
            ue5: match s.file_version_ue5 {
                Some(v) if v > 0 => v,
                _ => {
                    if s.file_version_ue4 == 0 {
                        1018
                    } else {
                        0
                    }
                }
            },
            licensee: s.licensee_version,
            custom: s
                .custom_versions
                .iter()
                .map(|c| (c.key, c.version))
                .collect(),
            custom_from_package: !s.custom_versions.is_empty(),
        },
        unversioned: s.unversioned_properties(),
    };
    let schemas: Box<dyn Schemas> = match std::env::var("USMAP") {
        Ok(p) => Box::new(pakrat_asset::usmap::Usmap::open(std::path::Path::new(&p)).unwrap()),
        Err(_) => Box::new(NoSchemas),
    };
    if std::env::var("SKIPS").is_ok() {
        for i in 0..asset.exports.len() {
            let p = decode_export(&asset, i, schemas.as_ref());
            for prop in &p.properties {
                walk(
                    &format!("{}.{}", asset.exports[i].name, prop.name),
                    &prop.value,
                );
            }
            if let Some(e) = p.error {
                println!(
                    "ERROR {} ({}): {e}",
                    asset.exports[i].name, asset.exports[i].class
                );
            }
        }
        return;
    }
    for i in 0..asset.exports.len() {
        let p = decode_export(&asset, i, schemas.as_ref());
        println!("== {} ({})", asset.exports[i].path, asset.exports[i].class);
        for prop in &p.properties {
            println!(
                "  {} [{}] {}: {:?}",
                prop.name, prop.index, prop.ty, prop.value
            );
        }
        println!(
            "  native: {:?} unread {} error {:?}",
            p.native, p.native_unread, p.error
        );
    }
}

fn walk(path: &str, v: &Value) {
    match v {
        Value::Skipped { size, reason } => println!("SKIP {path} ({size}): {reason}"),
        Value::Struct(f) => {
            for p in f {
                walk(&format!("{path}.{}", p.name), &p.value)
            }
        }
        Value::Array(a) | Value::Set(a) | Value::Multicast(a) => {
            for (i, x) in a.iter().enumerate() {
                walk(&format!("{path}[{i}]"), x)
            }
        }
        Value::Map(m) => {
            for (i, (k, x)) in m.iter().enumerate() {
                walk(&format!("{path}{{{i}k}}"), k);
                walk(&format!("{path}{{{i}}}"), x)
            }
        }
        Value::Optional(Some(x)) => walk(path, x),
        _ => {}
    }
}
