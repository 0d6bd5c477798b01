//! Corpus mutation run for the mesh readers (docs/hostile.md): every UE1
//! mesh of the corpus, the UE2 static meshes of four packages
//! (UT2004, Killing Floor, Shrek 2, Unreal Warfare builds) and the UE2
//! skeletal meshes, animations and vertex meshes of three (Harry Potter 3,
//! UT2004's SniperAnims and XVehicles_rc), their object
//! bytes mutated in place 150 times
//! (the fixed-seed shapes of `pakrat_testkit::mutate`: truncations, bit
//! flips, byte runs, evil u32 values), read, turned into a scene and
//! written as `.glb`. Each case must end with a result or a clear error:
//! no panic, no hang, and a heap peak within 64 MiB + 64 × the object's
//! size. The unmutated meshes must export.
//!
//! The UE4/UE5 animation decoder likewise: the compressed byte streams
//! (offset tables and keys) of the fixture project's `AS_Fixture` and
//! `AS_Additive` (UE 5.8 and 6.0) mutated 150 times each, decoded, put on
//! a three-bone skeleton and written as `.glb` and `.psa`.

use std::time::{Duration, Instant};

use pakrat_testkit::mutate::{mutations, run_case, set_label, CountingAlloc, Failure};

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc::new();

const PER_MESH: usize = 150;
const BASE_BUDGET: usize = 64 << 20;
const PER_OBJECT_BYTE: usize = 64;

fn case(data: &[u8], index: usize) -> Result<(), String> {
    let e = |e: pakrat_io::Error| e.to_string();
    let pkg = pakrat_classic::Package::parse_lenient(data).map_err(e)?;
    let class = pkg.export_class_name(index).map_err(e)?.to_string();
    let s = match class.as_str() {
        "StaticMesh" => {
            let m = pakrat_mesh::ue2_static::read_static_mesh(&pkg, index).map_err(e)?;
            pakrat_mesh::ue2_static::to_scene(&pkg, index, &m).map_err(e)?
        }
        "SkeletalMesh" => {
            let m = pakrat_mesh::ue2_skel::read_skeletal_mesh(&pkg, index).map_err(e)?;
            let a = pakrat_mesh::ue2_export::mesh_animation(&pkg, &m);
            let s = pakrat_mesh::ue2_export::skeletal_scene(
                &pkg,
                index,
                &m,
                a.as_ref().map(|a| &a.1),
                true,
            )
            .map_err(e)?;
            pakrat_mesh::psk::write(&s, "m", None)?;
            s
        }
        "MeshAnimation" => {
            let a = pakrat_mesh::ue2_anim::read_mesh_animation(&pkg, index).map_err(e)?;
            let s = pakrat_mesh::ue2_export::animation_scene(&pkg, index, &a).map_err(e)?;
            let seqs: Vec<pakrat_mesh::psk::SeqInfo> = a
                .seqs
                .iter()
                .map(|q| pakrat_mesh::psk::SeqInfo {
                    name: q.name.clone(),
                    group: String::new(),
                    rate: q.rate,
                    frames: q.frames.max(0) as usize,
                })
                .collect();
            pakrat_mesh::psk::psa(&s, &seqs)?;
            s
        }
        "VertMesh" => {
            let m = pakrat_mesh::ue2_vert::read_vert_mesh(&pkg, index).map_err(e)?;
            pakrat_mesh::ue2_vert::to_scene(&pkg, index, &m).map_err(e)?
        }
        _ => {
            let m = pakrat_mesh::ue1::read_mesh(&pkg, index).map_err(e)?;
            pakrat_mesh::ue1_scene::to_scene(&pkg, index, &m).map_err(e)?
        }
    };
    let files = pakrat_mesh::gltf::write(&s, pakrat_mesh::gltf::Format::Glb, "m")?;
    assert!(files[0].1.starts_with(b"glTF"));
    Ok(())
}

#[test]
fn mutated_meshes_end_cleanly() {
    let Some(corpus) = pakrat_testkit::corpus_dir() else {
        return;
    };
    ALLOC.set_limit(1 << 30);
    let started = Instant::now();
    let (mut cases, mut ok, mut errors, mut max_peak) = (0, 0, 0, 0);
    let mut failures = Vec::new();
    for file in [
        "ue1/relics.u",
        "ue1/epiccustommodels.u",
        "ue2/forest.usx",
        "licensee/kf_GreenShopArrow.usx",
        "licensee/shrek2_5_FGM_Donkey_SM.usx",
        "ue2/UTRPGStatics.usx",
        "licensee/hp3_RT_Box_K.ukx",
        "ue2/SniperAnims.ukx",
        "ue2/XVehicles_rc.u",
    ] {
        let data = std::fs::read(corpus.join(file)).unwrap();
        let pkg = pakrat_classic::Package::parse(&data).unwrap();
        let meshes: Vec<(usize, usize, usize)> = (0..pkg.exports.len())
            .filter(|&i| {
                let c = pkg.export_class_name(i).unwrap();
                pakrat_mesh::ue1::mesh_class(c).is_some()
                    || ["StaticMesh", "SkeletalMesh", "MeshAnimation", "VertMesh"].contains(&c)
            })
            .map(|i| {
                let e = pkg.export(i).unwrap();
                (i, e.serial_offset as usize, e.serial_size as usize)
            })
            .collect();
        drop(pkg);
        for (mi, &(index, off, size)) in meshes.iter().enumerate() {
            let object = &data[off..off + size];
            let mut muts = mutations(object, 0x6d65_7368 ^ mi as u64, PER_MESH);
            muts.insert(
                0,
                pakrat_testkit::mutate::Mutation {
                    name: "original".into(),
                    data: object.to_vec(),
                },
            );
            for m in muts {
                // The mutated object spliced back in place (a truncated one
                // leaves the rest of the file where it was: zero padding).
                let mut input = data.clone();
                let end = (off + m.data.len()).min(off + size);
                input[off..end].copy_from_slice(&m.data[..end - off]);
                input[end..off + size].fill(0);
                let label = format!("{file} export {index} [{}]", m.name);
                set_label(&label);
                let budget = BASE_BUDGET + PER_OBJECT_BYTE * size;
                let before = ALLOC.live();
                ALLOC.reset_peak();
                let outcome = run_case(input, Duration::from_secs(20), move |d| case(d, index));
                let peak = ALLOC.peak().saturating_sub(before);
                max_peak = max_peak.max(peak);
                cases += 1;
                match outcome {
                    Ok(Ok(())) => ok += 1,
                    Ok(Err(e)) if m.name == "original" => {
                        failures.push(format!("{label}: the unmutated mesh fails: {e}"))
                    }
                    Ok(Err(_)) => errors += 1,
                    Err(f) => failures.push(format!(
                        "{label}: {}",
                        match f {
                            Failure::Panic(p) => format!("panic: {p}"),
                            Failure::Hang(d) => format!("no result within {d:?}"),
                            Failure::Memory { peak, budget } =>
                                format!("peak {peak} over {budget}"),
                            Failure::UnclearError(s) => format!("unclear error {s:?}"),
                        }
                    )),
                }
                if peak > budget {
                    failures.push(format!(
                        "{label}: peak heap {peak} bytes over budget {budget}"
                    ));
                }
            }
        }
    }
    set_label("");
    println!(
        "mesh mutations: {cases} cases, {ok} ok, {errors} clear errors, max peak {:.1} MiB, {:.1} s",
        max_peak as f64 / (1 << 20) as f64,
        started.elapsed().as_secs_f64()
    );
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// The fixture animations, read whole (their codec header and stream).
fn fixture_animations(corpus: &std::path::Path) -> Vec<pakrat_mesh::ue5::anim::AnimInfo> {
    use pakrat_asset::props::open;
    let keys = pakrat_codec::keys::KeyRing::new();
    let mut out = Vec::new();
    for engine in ["UE5_8", "UE6_0"] {
        let dir = corpus.join(format!(
            "iostore/cue4parse/{engine}/IoStore/Tagged/Uncompressed"
        ));
        let utoc = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .find(|p| p.extension().is_some_and(|e| e == "utoc"))
            .unwrap();
        let c = pakrat_iostore::Container::open(&utoc, &keys).unwrap();
        let global = open::find_global(&utoc).unwrap();
        let script = open::load_global(&global, &keys).unwrap();
        for name in ["AS_Fixture", "AS_Additive"] {
            let path = format!("/Game/Fixtures/Animations/{name}");
            let o = open::open_in_container(&c, Some(&script), &path, None).unwrap();
            let asset = o.asset();
            let i = asset.exports.iter().position(|e| e.name == name).unwrap();
            let none = |_: &pakrat_asset::bulk::BulkRef| -> pakrat_io::Result<Vec<u8>> {
                Err(pakrat_io::Error::Other("no bulk".into()))
            };
            let a = pakrat_mesh::ue5::anim::read_anim_sequence(
                &asset,
                i,
                &pakrat_asset::props::NoSchemas,
                &none,
            )
            .unwrap();
            out.push(a);
        }
    }
    out
}

/// Decode `a` with byte stream `stream`, build its scene on a three-bone
/// skeleton and write it.
fn anim_case(a: &pakrat_mesh::ue5::anim::AnimInfo, stream: &[u8]) -> Result<(), String> {
    use pakrat_mesh::ue5::{anim_codec, anim_scene, skeleton};
    let mut a = a.clone();
    a.ue = Some(
        a.ue.as_ref()
            .ok_or("no header")?
            .with_stream(stream)
            .map_err(|e| e.to_string())?,
    );
    a.stream = stream.to_vec();
    let tracks = anim_codec::decode(&a).map_err(|e| e.to_string())?;
    let bone = |name: &str, parent| skeleton::BoneInfo {
        name: name.into(),
        parent,
    };
    let skel = skeleton::RefSkeleton {
        bones: vec![bone("Root", -1), bone("Joint_1", 0), bone("Joint_2", 1)],
        pose: vec![skeleton::Transform::default(); 3],
        name_to_index: Vec::new(),
    };
    let keys = anim_scene::key_count(&a);
    let base = anim_scene::pose_at(&tracks, keys, 0.0, &skel);
    let s = anim_scene::to_scene(&a, &tracks, &skel, Some(&base))?;
    let files = pakrat_mesh::gltf::write(&s, pakrat_mesh::gltf::Format::Glb, "a")?;
    assert!(files[0].1.starts_with(b"glTF"));
    let seq = pakrat_mesh::psk::SeqInfo {
        name: a.name.clone(),
        group: String::new(),
        rate: anim_scene::frame_rate(&a),
        frames: keys,
    };
    pakrat_mesh::psk::psa(&s, &[seq])?;
    Ok(())
}

#[test]
fn mutated_animation_streams_end_cleanly() {
    let Some(corpus) = pakrat_testkit::corpus_dir() else {
        return;
    };
    ALLOC.set_limit(1 << 30);
    let (mut cases, mut ok, mut errors) = (0, 0, 0);
    let mut failures = Vec::new();
    for (k, a) in fixture_animations(&corpus).into_iter().enumerate() {
        let mut muts = mutations(&a.stream, 0x616e_696d ^ k as u64, PER_MESH);
        muts.insert(
            0,
            pakrat_testkit::mutate::Mutation {
                name: "original".into(),
                data: a.stream.clone(),
            },
        );
        for m in muts {
            let label = format!("{} [{}]", a.path, m.name);
            set_label(&label);
            let a = a.clone();
            let before = ALLOC.live();
            ALLOC.reset_peak();
            let outcome = run_case(m.data, Duration::from_secs(20), move |d| anim_case(&a, d));
            let peak = ALLOC.peak().saturating_sub(before);
            cases += 1;
            match outcome {
                Ok(Ok(())) => ok += 1,
                Ok(Err(e)) if m.name == "original" => {
                    failures.push(format!("{label}: the unmutated animation fails: {e}"))
                }
                Ok(Err(_)) => errors += 1,
                Err(f) => failures.push(format!("{label}: {f:?}")),
            }
            if peak > BASE_BUDGET {
                failures.push(format!(
                    "{label}: peak heap {peak} bytes over {BASE_BUDGET}"
                ));
            }
        }
    }
    set_label("");
    println!("animation mutations: {cases} cases, {ok} ok, {errors} clear errors");
    assert!(cases >= 4 * PER_MESH);
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
