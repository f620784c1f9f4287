//! The committed C header must match what cbindgen generates from the current source.

#[test]
fn committed_header_is_current() {
    let generated = include_str!(concat!(env!("OUT_DIR"), "/ankita.h"));
    let committed =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/include/ankita.h"))
            .expect("include/ankita.h exists");
    assert!(
        generated == committed,
        "include/ankita.h is stale: run `cargo build` outside CI and commit include/ankita.h"
    );
}
