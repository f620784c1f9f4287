//! The trim against the strict floor: serde_json reading the same bytes into `IgnoredAny`,
//! compiled in a crate of its own as one codegen unit (`benches/floor/`, the root manifest's
//! `[profile.*.package.ankita-floor]`), so the floor is not slowed by this crate's profile. Each
//! workload is read by the floor, read by the same pass compiled here (the crate's profile, the
//! floor of `benches/ratios.rs`) and trimmed by `ankita_trim_n`, in turn; the medians of the
//! threads' CPU times over 11 rounds are compared.
//!
//! Run: `cargo bench --bench floor` (`-- --rounds N` for another odd number of rounds;
//! `-- --lib PATH` trims with the `ankita_trim_n` of a built library, `libankita.so` as the
//! packages ship it, loaded with `dlopen`, rather than with this crate compiled into the bench).

#[path = "workload.rs"]
mod workload;

use serde_json::{json, Value};
use std::ffi::{c_char, CStr};
use std::hint::black_box;
use std::time::Duration;

#[path = "support/clock.rs"]
mod clock;
use clock::{median, thread_cpu};

/// The C ABI's two functions a trim calls: this crate's, or a built library's.
#[derive(Clone, Copy)]
struct Abi {
    trim_n: unsafe extern "C" fn(*const c_char, usize) -> *mut c_char,
    free: unsafe extern "C" fn(*mut c_char),
}

impl Abi {
    fn linked() -> Abi {
        Abi {
            trim_n: ankita::ffi::ankita_trim_n,
            free: ankita::ffi::ankita_string_free,
        }
    }

    /// The functions of the library at `path`, which stays loaded.
    fn load(path: &str) -> Abi {
        let name = std::ffi::CString::new(path).expect("a path without NUL");
        // SAFETY: dlopen and dlsym with NUL-terminated names; the symbols have the types of
        // include/ankita.h, and the library is never closed.
        unsafe {
            let lib = libc::dlopen(name.as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL);
            assert!(!lib.is_null(), "cannot load {path}");
            let symbol = |s: &CStr| {
                let f = libc::dlsym(lib, s.as_ptr());
                assert!(!f.is_null(), "{path} has no {s:?}");
                f
            };
            Abi {
                trim_n: std::mem::transmute::<
                    *mut libc::c_void,
                    unsafe extern "C" fn(*const c_char, usize) -> *mut c_char,
                >(symbol(c"ankita_trim_n")),
                free: std::mem::transmute::<*mut libc::c_void, unsafe extern "C" fn(*mut c_char)>(
                    symbol(c"ankita_string_free"),
                ),
            }
        }
    }

    /// `ankita_trim_n` as a host calls it; the answer is checked by its first bytes.
    fn trim(self, text: &str) -> usize {
        // SAFETY: a valid buffer of `len` bytes; every answer is longer than 10 bytes; it is
        // released below.
        unsafe {
            let p = (self.trim_n)(text.as_ptr().cast::<c_char>(), text.len());
            let head = std::slice::from_raw_parts(p.cast::<u8>(), 10);
            assert_eq!(head, b"{\"ok\":true", "{:?}", CStr::from_ptr(p));
            (self.free)(p);
            head.len()
        }
    }
}

/// The medians of (strict floor, the pass built here, trim) over `rounds` rounds.
fn measure(abi: Abi, text: &str, rounds: usize) -> [Duration; 3] {
    let mut times: [Vec<Duration>; 3] = Default::default();
    for _ in 0..rounds {
        let t = thread_cpu();
        ankita_floor::parse(black_box(text)).unwrap();
        times[0].push(thread_cpu() - t);
        let t = thread_cpu();
        serde_json::from_str::<serde::de::IgnoredAny>(black_box(text)).unwrap();
        times[1].push(thread_cpu() - t);
        let t = thread_cpu();
        black_box(abi.trim(black_box(text)));
        times[2].push(thread_cpu() - t);
    }
    times.map(median)
}

fn with(mut request: Value, extra: &Value) -> String {
    for (key, value) in extra.as_object().unwrap() {
        request[key] = value.clone();
    }
    request.to_string()
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let rounds = args
        .iter()
        .position(|a| a == "--rounds")
        .map_or(11, |at| args[at + 1].parse().expect("a round count"));
    let lib = args
        .iter()
        .position(|a| a == "--lib")
        .map(|at| &args[at + 1]);
    let abi = lib.map_or_else(Abi::linked, |path| Abi::load(path));

    let chat = workload::chat(20_000);
    let shots = workload::session(200, 20, 900_000);
    let tight = json!({"context_tokens": 32_000, "max_output_tokens": 2_000});
    let loose = json!({"context_tokens": 100_000_000, "max_messages": 1_000_000_000u64});
    let tight_bytes = json!({"max_bytes": 128_000});
    let loose_bytes = json!({"max_messages": 1_000_000_000u64, "max_bytes": 1_000_000_000u64});
    let openai = json!({ "messages": chat });
    let anthropic = {
        let (system, messages) = workload::to_anthropic(&chat);
        json!({"format": "anthropic", "system": system, "messages": messages})
    };
    let responses = {
        let (system, items) = workload::to_responses(&chat);
        json!({"format": "responses", "system": system, "messages": items})
    };
    let screenshots = json!({ "messages": shots });
    let cases: Vec<(&str, String, f64)> = vec![
        (
            "20,000-message text session, tight in bytes",
            with(openai.clone(), &tight_bytes),
            3.0,
        ),
        (
            "20,000-message text session, loose in bytes",
            with(openai.clone(), &loose_bytes),
            3.0,
        ),
        (
            "20,000-message text session, tight (32k tokens)",
            with(openai.clone(), &tight),
            3.0,
        ),
        (
            "20,000-message text session, loose (keeps all)",
            with(openai, &loose),
            3.0,
        ),
        (
            "screenshot session, tight",
            with(screenshots.clone(), &tight),
            0.0,
        ),
        (
            "screenshot session, loose (keeps all)",
            with(screenshots, &loose),
            0.0,
        ),
        (
            "the text session in the Anthropic format, tight",
            with(anthropic.clone(), &tight),
            0.0,
        ),
        (
            "the text session in the Anthropic format, loose",
            with(anthropic, &loose),
            0.0,
        ),
        (
            "the text session as Responses items, tight",
            with(responses.clone(), &tight),
            0.0,
        ),
        (
            "the text session as Responses items, loose",
            with(responses, &loose),
            0.0,
        ),
    ];
    println!(
        "medians of {rounds} rounds, thread CPU time; the trim: {}",
        lib.map_or("this crate, compiled into the bench", |path| path.as_str())
    );
    println!(
        "{:<50} {:>6} {:>8} {:>8} {:>8} {:>6} {:>6} {:>6}",
        "workload", "MB", "floor ms", "here ms", "trim ms", "ratio", "here", "target"
    );
    for (name, text, target) in &cases {
        let [floor, here, trim] = measure(abi, text, rounds);
        let target = if *target > 0.0 {
            format!("≤{target}")
        } else {
            String::new()
        };
        println!(
            "{name:<50} {:>6.1} {:>8.2} {:>8.2} {:>8.2} {:>6.2} {:>6.2} {:>6}",
            text.len() as f64 / 1e6,
            ms(floor),
            ms(here),
            ms(trim),
            trim.as_secs_f64() / floor.as_secs_f64(),
            trim.as_secs_f64() / here.as_secs_f64(),
            target
        );
    }
    println!(
        "ratio: trim ÷ the strict floor; here: trim ÷ the same pass compiled with this crate's \
         profile (benches/ratios.rs's floor)"
    );
}
