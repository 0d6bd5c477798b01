//! UE2 `MeshAnimation`: the animated bones and one motion chunk per
//! sequence, read with every count checked against the bytes that remain,
//! and the sequences as glTF animations on a skeleton's joints.
//!
//! Layout after the properties (facts from UEViewer
//! `Unreal/UnrealMesh/UnMesh2.h` `UMeshAnimation`, `MotionChunk`,
//! `AnalogTrack`, `FNamedBone`; `UnAnim2.cpp` for the time scale):
//!
//! ```text
//! i32 Version
//! TArray<FNamedBone> RefBones     Name, u32 Flags, i32 ParentIndex
//! TArray<MotionChunk> Moves       FVector RootSpeed3D, f32 TrackTime, i32 StartBone, u32 Flags,
//!                                 TArray<i32> BoneIndices, TArray<AnalogTrack> AnimTracks,
//!                                 AnalogTrack RootTrack
//! AnalogTrack                     u32 Flags, TArray<FQuat> KeyQuat, TArray<FVector> KeyPos,
//!                                 TArray<f32> KeyTime
//! TArray<FMeshAnimSeq> AnimSeqs   (see ue2_vert)
//! ```
//!
//! Move `k` animates sequence `k`; track `j` animates `RefBones[j]`. Key
//! times are in frames of the motion chunk's `TrackTime`; scaled to the
//! sequence's `NumFrames` and divided by its `Rate` they are seconds. A
//! track with one position or rotation key holds it for the whole sequence.
//! The UT2004 packages store the keys as floats (no compressed tracks; the
//! compressed forms of Splinter Cell and others are not read).

use pakrat_classic::Package;
use pakrat_io::{Error, Reader, Result};

use crate::model::{Animation, BoneKeys, Interpolation, Track};
use crate::ue1_scene::convert_axes;
use crate::ue2_skel::bone_rotation;
use crate::ue2_vert::{name, read_seqs, vec3, AnimSeq};

/// One bone's keys.
#[derive(Clone, Debug, Default)]
pub struct AnalogTrack {
    /// Rotations as stored (x, y, z, w).
    pub quats: Vec<[f32; 4]>,
    /// Positions.
    pub positions: Vec<[f32; 3]>,
    /// Key times (frames).
    pub times: Vec<f32>,
}

/// One sequence's motion.
#[derive(Clone, Debug, Default)]
pub struct MotionChunk {
    /// Length in frames of the key times.
    pub track_time: f32,
    /// One track per animated bone.
    pub tracks: Vec<AnalogTrack>,
}

/// A UE2 `MeshAnimation`.
#[derive(Clone, Debug, Default)]
pub struct MeshAnimation {
    /// Animated bones: (name, parent).
    pub bones: Vec<(String, i32)>,
    /// Motion chunks, one per sequence.
    pub moves: Vec<MotionChunk>,
    /// Sequences.
    pub seqs: Vec<AnimSeq>,
}

fn analog_track(r: &mut Reader<'_>) -> Result<AnalogTrack> {
    r.u32("track flags")?;
    let n = r.compact_count("rotation keys", 16)?;
    let quats = (0..n)
        .map(|_| {
            Ok([
                r.f32("quat")?,
                r.f32("quat")?,
                r.f32("quat")?,
                r.f32("quat")?,
            ])
        })
        .collect::<Result<_>>()?;
    let n = r.compact_count("position keys", 12)?;
    let positions = (0..n)
        .map(|_| vec3(r, "position key"))
        .collect::<Result<_>>()?;
    let n = r.compact_count("key times", 4)?;
    let times = (0..n).map(|_| r.f32("key time")).collect::<Result<_>>()?;
    Ok(AnalogTrack {
        quats,
        positions,
        times,
    })
}

/// Read `exports[i]` as a UE2 `MeshAnimation`.
pub fn read_mesh_animation(pkg: &Package<'_>, i: usize) -> Result<MeshAnimation> {
    let v = pkg.summary.version;
    if !(110..130).contains(&v) {
        return Err(Error::unsupported(
            0,
            format!(
                "MeshAnimation of package version {v}: the layout read is that of UE2 (110-129)"
            ),
        ));
    }
    let o = pakrat_classic::props::read_object(pkg, i)?;
    let mut r = o.native;
    r.i32("MeshAnimation version")?;
    let n = r.compact_count("animated bones", 9)?;
    let bones = (0..n)
        .map(|_| {
            let nm = name(pkg, &mut r, "bone name")?;
            r.u32("bone flags")?;
            Ok((nm, r.i32("bone parent")?))
        })
        .collect::<Result<Vec<_>>>()?;
    let n = r.compact_count("motion chunks", 24 + 3 + 13)?;
    let mut moves = Vec::with_capacity(n);
    for _ in 0..n {
        r.skip(12, "root speed")?;
        let track_time = r.f32("track time")?;
        r.skip(8, "start bone and flags")?;
        let nb = r.compact_count("bone indices", 4)?;
        r.skip(nb as u64 * 4, "bone indices")?;
        let nt = r.compact_count("tracks", 7)?;
        let tracks = (0..nt)
            .map(|_| analog_track(&mut r))
            .collect::<Result<_>>()?;
        analog_track(&mut r)?;
        moves.push(MotionChunk { track_time, tracks });
    }
    let seqs = read_seqs(pkg, &mut r)?;
    if r.remaining() != 0 {
        return Err(Error::invalid(
            r.offset(),
            format!("{} bytes left after the MeshAnimation data", r.remaining()),
        ));
    }
    let m = MeshAnimation { bones, moves, seqs };
    m.check()?;
    Ok(m)
}

impl MeshAnimation {
    fn check(&self) -> Result<()> {
        let bad = |s: String| Err(Error::Other(s));
        if self.moves.len() != self.seqs.len() {
            return bad(format!(
                "{} motion chunks for {} sequences",
                self.moves.len(),
                self.seqs.len()
            ));
        }
        for (k, (mv, s)) in self.moves.iter().zip(&self.seqs).enumerate() {
            // Frames are sampled for a .psa: bounded by what the file holds.
            let keys: usize = mv.tracks.iter().map(|t| t.times.len()).max().unwrap_or(0);
            if s.frames < 0 || s.frames as usize > 4 * keys + 1024 {
                return bad(format!(
                    "sequence {k} ({}): {} frames for at most {keys} keys a bone",
                    s.name, s.frames
                ));
            }
            if mv.tracks.len() != self.bones.len() {
                return bad(format!(
                    "sequence {k} ({}): {} tracks for {} bones",
                    s.name,
                    mv.tracks.len(),
                    self.bones.len()
                ));
            }
            for (j, t) in mv.tracks.iter().enumerate() {
                let n = t.times.len();
                let ok = |c: usize| c == n || c <= 1;
                if !ok(t.quats.len()) || !ok(t.positions.len()) {
                    return bad(format!(
                        "sequence {k} ({}), bone {j}: {} rotations and {} positions for {n} times",
                        s.name,
                        t.quats.len(),
                        t.positions.len()
                    ));
                }
            }
        }
        Ok(())
    }

    /// Frames over all sequences (the sum of `NumFrames`).
    pub fn frame_count(&self) -> usize {
        self.seqs.iter().map(|s| s.frames.max(0) as usize).sum()
    }
}

/// Times in seconds of a track's keys: strictly increasing (a key at or
/// before its predecessor is dropped), finite.
fn seconds(t: &AnalogTrack, scale: f32, rate: f32, n: usize) -> Vec<(usize, f32)> {
    let mut out: Vec<(usize, f32)> = Vec::with_capacity(n);
    for k in 0..n {
        let s = if t.times.len() == n {
            t.times[k] * scale / rate
        } else {
            0.0
        };
        if !s.is_finite() || out.last().is_some_and(|l| s <= l.1) {
            continue;
        }
        out.push((k, s.max(0.0)));
    }
    out
}

/// The sequences as glTF animations on the joints of a skeleton whose bone
/// names are `joints`: each animated bone is matched by name
/// (case-insensitive); bones the skeleton lacks are left out. Rotations and
/// translations are converted as the reference pose is
/// ([`bone_rotation`], [`convert_axes`]); the root is the joint without a
/// parent, as in the mesh.
pub fn animations(a: &MeshAnimation, joints: &[(String, bool)]) -> Vec<Animation> {
    let map: Vec<Option<usize>> = a
        .bones
        .iter()
        .map(|(n, _)| joints.iter().position(|j| j.0.eq_ignore_ascii_case(n)))
        .collect();
    let mut out = Vec::new();
    for (mv, s) in a.moves.iter().zip(&a.seqs) {
        let rate = if s.rate.is_finite() && s.rate > 0.0 {
            s.rate
        } else {
            30.0
        };
        let scale = if mv.track_time > 0.0 && s.frames > 0 {
            s.frames as f32 / mv.track_time
        } else {
            1.0
        };
        let mut tracks = Vec::new();
        for (t, j) in mv.tracks.iter().zip(&map) {
            let Some(j) = *j else { continue };
            let root = joints[j].1;
            let nq = t.quats.len();
            if nq > 0 {
                let keys = seconds(t, scale, rate, nq);
                tracks.push(Track::Bone {
                    bone: j,
                    times: keys.iter().map(|k| k.1).collect(),
                    values: BoneKeys::Rotation(
                        keys.iter()
                            .map(|k| bone_rotation(t.quats[k.0], root))
                            .collect(),
                    ),
                    interpolation: Interpolation::Linear,
                });
            }
            let np = t.positions.len();
            if np > 0 {
                let keys = seconds(t, scale, rate, np);
                tracks.push(Track::Bone {
                    bone: j,
                    times: keys.iter().map(|k| k.1).collect(),
                    values: BoneKeys::Translation(
                        keys.iter()
                            .map(|k| finite3(convert_axes(t.positions[k.0])))
                            .collect(),
                    ),
                    interpolation: Interpolation::Linear,
                });
            }
        }
        out.push(Animation {
            name: s.name.clone(),
            tracks,
        });
    }
    out
}

fn finite3(v: [f32; 3]) -> [f32; 3] {
    v.map(|c| if c.is_finite() { c } else { 0.0 })
}
