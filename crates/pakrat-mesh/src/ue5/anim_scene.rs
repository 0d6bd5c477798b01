//! A decoded UE4/UE5 animation as a glTF scene: the skeleton it plays on
//! (its `Skeleton`'s reference pose, as joints) and one glTF animation
//! with a translation, rotation and scale sampler per decoded track.
//!
//! Key times: a key-time table gives frame indices, `frame × length /
//! (keys − 1)` seconds; without one a track's keys spread evenly over the
//! sequence's length (UE `AnimEncoding_PerTrackCompression.cpp`); a track
//! of one key holds still, written as two equal keys at 0 and the length.
//!
//! Additive animations (`AAT_LocalSpaceBase`) are written applied to their
//! base pose, as a player shows them: the base sequence's frame
//! `RefFrameIndex` (`ABPT_AnimFrame`), the animation's own frame
//! (`ABPT_LocalAnimFrame`) or the skeleton's reference pose
//! (`ABPT_RefPose`): rotation = additive × base, translation = base +
//! additive, scale = base × (1 + additive) (UE
//! `FTransform::AccumulateWithAdditiveScale`; CUE4Parse `AnimConverter.cs`
//! `ConvertAdditive`). `ABPT_AnimScaled` and mesh-space rotation offsets
//! are not applied (the animation is skipped, saying so).

use super::anim::AnimInfo;
use super::anim_codec::{BoneTrack, Keys};
use super::quat_axes;
use super::skel_scene::skeleton;
use super::skeleton::{RefSkeleton, Transform};
use crate::model::{Animation, BoneKeys, Interpolation, Scene, Track};
use crate::ue1_scene::convert_axes;

/// Keys of a full track (`CompressedNumberOfKeys`, at least 1).
pub fn key_count(a: &AnimInfo) -> usize {
    a.ue.as_ref().map_or(1, |h| h.num_keys.max(1))
}

/// Frames per second: (keys − 1) / length, 30 when that is not a number.
pub fn frame_rate(a: &AnimInfo) -> f32 {
    let n = key_count(a);
    let r = (n - 1) as f32 / a.length;
    if n > 1 && r.is_finite() && r > 0.0 {
        r
    } else {
        30.0
    }
}

/// The frame (fractional) of each key of `k`.
fn key_frames<T>(k: &Keys<T>, keys: usize) -> Vec<f32> {
    let n = k.values.len();
    match &k.frames {
        Some(f) => f.iter().map(|&x| f32::from(x)).collect(),
        None if n <= 1 => vec![0.0; n],
        None => (0..n)
            .map(|i| i as f32 * (keys - 1) as f32 / (n - 1) as f32)
            .collect(),
    }
}

/// `k`'s value at frame `f` (linear between keys; rotations normalised
/// lerp, shortest way).
fn sample<const N: usize>(k: &Keys<[f32; N]>, keys: usize, f: f32, quat: bool) -> [f32; N] {
    let fr = key_frames(k, keys);
    let v = &k.values;
    let i = fr.iter().position(|&x| x > f).unwrap_or(v.len());
    if v.is_empty() {
        return [if quat { 0.0 } else { 1.0 }; N].map(|x| x);
    }
    if i == 0 {
        return v[0];
    }
    if i >= v.len() {
        return v[v.len() - 1];
    }
    let (a, b) = (v[i - 1], v[i]);
    let span = fr[i] - fr[i - 1];
    let t = if span > 0.0 {
        (f - fr[i - 1]) / span
    } else {
        0.0
    };
    let dot: f32 = (0..N).map(|c| a[c] * b[c]).sum();
    let s = if quat && dot < 0.0 { -1.0 } else { 1.0 };
    let mut out = [0f32; N];
    for c in 0..N {
        out[c] = a[c] + (s * b[c] - a[c]) * t;
    }
    if quat {
        let l = out.iter().map(|x| x * x).sum::<f32>().sqrt();
        if l > 1e-12 {
            out = out.map(|x| x / l);
        }
    }
    out
}

/// The pose of `tracks` at frame `frame`, bone by bone over `skel` (bones
/// without a track keep the reference pose; identity components of a
/// track are the identity, as the codec defines them).
pub fn pose_at(
    tracks: &[BoneTrack],
    keys: usize,
    frame: f32,
    skel: &RefSkeleton,
) -> Vec<Transform> {
    let mut pose = skel.pose.clone();
    for t in tracks {
        let Some(p) = usize::try_from(t.bone).ok().and_then(|b| pose.get_mut(b)) else {
            continue;
        };
        p.translation = t
            .translation
            .as_ref()
            .map_or([0.0; 3], |k| sample(k, keys, frame, false))
            .map(f64::from);
        p.rotation = t
            .rotation
            .as_ref()
            .map_or([0.0, 0.0, 0.0, 1.0], |k| sample(k, keys, frame, true))
            .map(f64::from);
        p.scale = t
            .scale
            .as_ref()
            .map_or([1.0; 3], |k| sample(k, keys, frame, false))
            .map(f64::from);
    }
    pose
}

/// Hamilton product (x, y, z, w).
fn qmul(a: [f64; 4], b: [f64; 4]) -> [f64; 4] {
    [
        a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1],
        a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0],
        a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3],
        a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2],
    ]
}

/// Why the additive animation `a` is not written, if it is not.
pub fn additive_problem(a: &AnimInfo) -> Option<String> {
    match (a.additive.as_str(), a.ref_pose_type.as_str()) {
        ("AAT_None", _) => None,
        ("AAT_LocalSpaceBase", "ABPT_RefPose" | "ABPT_AnimFrame" | "ABPT_LocalAnimFrame") => None,
        (t, b) => Some(format!(
            "additive animation {t} on base {b}: applying it to its base is not implemented"
        )),
    }
}

/// Seconds of each key, strictly increasing (a key at or before the one
/// before it is dropped): (key index, seconds).
fn seconds<T>(k: &Keys<T>, keys: usize, length: f32) -> Vec<(usize, f32)> {
    let per = if keys > 1 {
        length / (keys - 1) as f32
    } else {
        0.0
    };
    let mut out: Vec<(usize, f32)> = Vec::new();
    for (i, f) in key_frames(k, keys).into_iter().enumerate() {
        let s = f * per;
        if !s.is_finite() || out.last().is_some_and(|l| s <= l.1) {
            continue;
        }
        out.push((i, s.max(0.0)));
    }
    if out.len() == 1 && length > 0.0 && length.is_finite() {
        out.push((out[0].0, length));
    }
    out
}

/// One glTF track from decoded keys, converted by `f` (None: no key).
fn track<T: Copy, U>(
    bone: usize,
    k: &Keys<T>,
    keys: usize,
    length: f32,
    step: bool,
    f: impl Fn(T) -> U,
    wrap: impl Fn(Vec<U>) -> BoneKeys,
) -> Option<Track> {
    let s = seconds(k, keys, length);
    if s.is_empty() {
        return None;
    }
    Some(Track::Bone {
        bone,
        times: s.iter().map(|x| x.1).collect(),
        values: wrap(s.iter().map(|x| f(k.values[x.0])).collect()),
        interpolation: if step {
            Interpolation::Step
        } else {
            Interpolation::Linear
        },
    })
}

fn finite<const N: usize>(v: [f32; N], or: [f32; N]) -> [f32; N] {
    if v.iter().all(|x| x.is_finite()) {
        v
    } else {
        or
    }
}

/// The scene of animation `a` with its decoded `tracks` on skeleton
/// `skel`; `base` is the base pose of an additive animation (one transform
/// per skeleton bone).
pub fn to_scene(
    a: &AnimInfo,
    tracks: &[BoneTrack],
    skel: &RefSkeleton,
    base: Option<&[Transform]>,
) -> Result<Scene, String> {
    if skel.bones.is_empty() {
        return Err("the skeleton has no bones".into());
    }
    let keys = key_count(a);
    let step = a.interpolation == "Step";
    let additive = a.additive != "AAT_None";
    let mut out = Vec::new();
    for t in tracks {
        let b = usize::try_from(t.bone)
            .ok()
            .filter(|&b| b < skel.bones.len())
            .ok_or_else(|| {
                format!(
                    "a track plays bone {}, the skeleton has {}",
                    t.bone,
                    skel.bones.len()
                )
            })?;
        let id = Transform::default();
        let bp = if additive {
            base.and_then(|p| p.get(b)).copied().unwrap_or(id)
        } else {
            id
        };
        let tr = |v: [f32; 3]| {
            let v = v.map(f64::from);
            let w =
                [0, 1, 2].map(|c| (v[c] + if additive { bp.translation[c] } else { 0.0 }) as f32);
            finite(convert_axes(w), [0.0; 3])
        };
        let rot = |q: [f32; 4]| {
            let q = q.map(f64::from);
            quat_axes(if additive { qmul(q, bp.rotation) } else { q })
        };
        let sc = |v: [f32; 3]| {
            let s = [0, 1, 2].map(|c| {
                let x = f64::from(v[c]);
                (if additive { bp.scale[c] * (1.0 + x) } else { x }) as f32
            });
            finite([s[1], s[2], s[0]], [1.0; 3])
        };
        let zero3 = Keys {
            values: vec![[0f32; 3]],
            frames: None,
            format: 6,
        };
        let unit = Keys {
            values: vec![[0f32, 0.0, 0.0, 1.0]],
            frames: None,
            format: 6,
        };
        let one3 = Keys {
            values: vec![if additive { [0f32; 3] } else { [1f32; 3] }],
            frames: None,
            format: 6,
        };
        let (tk, rk, sk) = (
            t.translation.as_ref().unwrap_or(&zero3),
            t.rotation.as_ref().unwrap_or(&unit),
            t.scale.as_ref().unwrap_or(&one3),
        );
        out.extend(track(
            b,
            tk,
            keys,
            a.length,
            step,
            tr,
            BoneKeys::Translation,
        ));
        out.extend(track(b, rk, keys, a.length, step, rot, BoneKeys::Rotation));
        out.extend(track(b, sk, keys, a.length, step, sc, BoneKeys::Scale));
    }
    Ok(Scene {
        name: a.path.clone(),
        skeleton: Some(skeleton(skel)),
        animations: vec![Animation {
            name: a.name.clone(),
            tracks: out,
        }],
        ..Default::default()
    })
}
