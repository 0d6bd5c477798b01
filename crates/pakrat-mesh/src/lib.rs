//! Meshes and animations of Unreal packages: a generation-neutral model
//! ([`model::Scene`]), a glTF 2.0 writer ([`gltf`]) and the readers that
//! fill the model: UE1 vertex meshes ([`ue1`], [`ue1_scene`]), UE2
//! static meshes ([`ue2_static`]), skeletal meshes ([`ue2_skel`]),
//! animations ([`ue2_anim`], [`ue2_export`]) and vertex meshes
//! ([`ue2_vert`]); UE4/UE5 static meshes ([`ue5`]); [`psk`] writes ActorX
//! `.psk`/`.psa`.
//!
//! ```no_run
//! # fn main() -> pakrat_io::Result<()> {
//! let src = pakrat_io::Source::open("relics.u")?;
//! let pkg = pakrat_classic::Package::parse(&src)?;
//! for i in 0..pkg.exports.len() {
//!     if pakrat_mesh::ue1::mesh_class(pkg.export_class_name(i)?).is_some() {
//!         let mesh = pakrat_mesh::ue1::read_mesh(&pkg, i)?;
//!         let scene = pakrat_mesh::ue1_scene::to_scene(&pkg, i, &mesh)?;
//!         let files = pakrat_mesh::gltf::write(&scene, pakrat_mesh::gltf::Format::Glb, "out")
//!             .map_err(pakrat_io::Error::Other)?;
//!         println!("{} -> {} files", scene.name, files.len());
//!     }
//! }
//! # Ok(()) }
//! ```
#![deny(missing_docs)]

pub mod export;
pub mod gltf;
pub mod model;
pub mod psk;
pub mod ue1;
pub mod ue1_3d;
pub mod ue1_scene;
pub mod ue2_anim;
pub mod ue2_export;
pub mod ue2_skel;
pub mod ue2_static;
pub mod ue2_vert;
pub mod ue5;
