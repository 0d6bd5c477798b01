//! The UE 5.4 shader library of the zenpair corpus in both forms
//! (`zenpair/retoc/UE5.4/ShaderArchive-*`, header-only files: the code blob
//! was left out upstream). Both parse and write back byte for byte; the pak
//! form converted by pakrat gives the engine's IoStore library chunk except
//! the group compressed sizes (pakrat stores groups plain).

use pakrat_iostore::shader_library::convert::{plan_groups, same_shader_maps, MAX_GROUP_SIZE};
use pakrat_iostore::shader_library::{split_file_name, LegacyShaderLibrary, ZenShaderLibrary};
use pakrat_iostore::Numbering;

const DIR: &str = "zenpair/retoc/UE5.4";
const NAME: &str = "ShaderArchive-NuclearNightmare-PCD3D_SM6-PCD3D_SM6";

fn read(name: &str) -> Option<Vec<u8>> {
    let root = pakrat_testkit::corpus_dir()?;
    Some(std::fs::read(root.join(DIR).join(name)).expect("corpus shader library"))
}

#[test]
fn both_forms_write_back_byte_for_byte() {
    let Some(legacy) = read(&format!("{NAME}.ushaderbytecode")) else {
        return;
    };
    let zen = read(&format!("{NAME}.uzenshaderbytecode")).unwrap();
    let global = read("ShaderArchive-Global-PCD3D_SM6-PCD3D_SM6.ushaderbytecode").unwrap();
    let l = LegacyShaderLibrary::parse(&legacy).unwrap();
    assert!(l.is_header_only());
    assert_eq!(l.to_bytes(), legacy);
    let z = ZenShaderLibrary::parse(&zen).unwrap();
    assert_eq!(z.to_bytes(), zen);
    // The "Global" file carries the IoStore form despite its extension.
    let g = ZenShaderLibrary::parse(&global).unwrap();
    assert_eq!(g.to_bytes(), global);
    assert_eq!(g.group_entries.len(), 535);
    eprintln!(
        "{NAME}: {} shader maps, {} shaders, {} groups, {} preload entries, {} indices (pak) / {} (IoStore)",
        l.shader_map_hashes.len(),
        l.shader_hashes.len(),
        z.group_entries.len(),
        l.preload_entries.len(),
        l.shader_indices.len(),
        z.shader_indices.len()
    );
}

#[test]
fn pak_form_converts_to_the_engines_library_chunk() {
    let Some(legacy) = read(&format!("{NAME}.ushaderbytecode")) else {
        return;
    };
    let engine =
        ZenShaderLibrary::parse(&read(&format!("{NAME}.uzenshaderbytecode")).unwrap()).unwrap();
    let l = LegacyShaderLibrary::parse(&legacy).unwrap();
    same_shader_maps(&l, &engine).unwrap();
    let (_, format) = split_file_name(NAME).unwrap();
    let mut ours = plan_groups(&l, &format, Numbering::Ue5, MAX_GROUP_SIZE);
    assert_eq!(ours.shader_entries, engine.shader_entries);
    assert_eq!(ours.shader_map_entries, engine.shader_map_entries);
    assert_eq!(ours.shader_indices, engine.shader_indices);
    assert_eq!(ours.group_chunk_ids, engine.group_chunk_ids);
    assert_eq!(ours.group_entries.len(), engine.group_entries.len());
    for (o, e) in ours.group_entries.iter_mut().zip(&engine.group_entries) {
        o.compressed_size = e.compressed_size;
    }
    assert_eq!(
        ours.to_bytes(),
        engine.to_bytes(),
        "only compressed sizes may differ"
    );
}
