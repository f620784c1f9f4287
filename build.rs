//! Generates the C header with cbindgen.
//!
//! The header is always written to `$OUT_DIR/ankita.h`; outside CI it is also copied to
//! `include/ankita.h` when it changed, so a local build keeps the committed header current.
//! In CI (`CI` set) the committed file is left alone and `tests/header.rs` fails if it is stale.
//! `CI` is read, not tracked (no `rerun-if-env-changed`): switching between a CI shell and a
//! plain one must not rebuild the crate, and the header only changes when `src` does.
//!
//! On Linux the shared library gets the SONAME `libankita.so.<major>` (`libankita.so.0` while
//! the version is 0.x), so programs linked against an installed `libankita.so` symlink load the
//! versioned file (`make install` lays out both).

use std::{env, fs, path::PathBuf};

fn main() {
    println!("cargo:rerun-if-changed=src");
    println!("cargo:rerun-if-changed=cbindgen.toml");

    if env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux") {
        let major = env::var("CARGO_PKG_VERSION_MAJOR").expect("CARGO_PKG_VERSION_MAJOR");
        println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libankita.so.{major}");
    }

    let crate_dir = PathBuf::from(env::var("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR"));
    let config = cbindgen::Config::from_file(crate_dir.join("cbindgen.toml"))
        .expect("cbindgen.toml is readable and valid");
    let header =
        cbindgen::generate_with_config(&crate_dir, config).expect("cbindgen can parse the crate");
    let out = PathBuf::from(env::var("OUT_DIR").expect("OUT_DIR")).join("ankita.h");
    header.write_to_file(&out);

    if env::var_os("CI").is_none() {
        let committed = crate_dir.join("include").join("ankita.h");
        let fresh = fs::read(&out).expect("generated header is readable");
        if fs::read(&committed).ok().as_deref() != Some(fresh.as_slice()) {
            fs::create_dir_all(committed.parent().unwrap()).expect("include/ is creatable");
            fs::write(&committed, fresh).expect("include/ankita.h is writable");
        }
    }
}
