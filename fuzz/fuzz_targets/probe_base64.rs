//! Structured: arbitrary bytes, base64-encoded with a random alphabet (standard, URL-safe or a
//! mix), with or without padding, wrapped at random widths with random white space, bare or
//! inside a data URL of random spelling. The text probe must give exactly the answer the raw
//! bytes give.

#![no_main]

use ankita::probe::{probe_bytes, probe_data_url, probe_text};
use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;

#[derive(Arbitrary, Debug, Clone, Copy)]
enum Alphabet {
    Standard,
    UrlSafe,
    /// Per character: bit i of the seed (cycled) picks URL-safe for `+`/`/`.
    Mixed(u64),
}

#[derive(Arbitrary, Debug, Clone, Copy)]
enum Space {
    Blank,
    Tab,
    Lf,
    Cr,
    CrLf,
    FormFeed,
}

impl Space {
    fn as_str(self) -> &'static str {
        match self {
            Space::Blank => " ",
            Space::Tab => "\t",
            Space::Lf => "\n",
            Space::Cr => "\r",
            Space::CrLf => "\r\n",
            Space::FormFeed => "\x0c",
        }
    }
}

#[derive(Arbitrary, Debug)]
struct Wrap {
    /// Characters per line (0 is taken as 1).
    every: u8,
    separator: Vec<Space>,
}

#[derive(Arbitrary, Debug)]
enum MediaType {
    None,
    Png,
    Jpeg,
    Jpg,
    Gif,
    Webp,
    Octet,
    /// Letters only, so it cannot end the header.
    Other(Vec<u8>),
}

#[derive(Arbitrary, Debug)]
enum Prefix {
    Bare {
        leading: Vec<Space>,
    },
    DataUrl {
        leading: Vec<Space>,
        /// Bit i upper-cases the i-th letter of `data` / the media type / `base64`.
        case: u64,
        media: MediaType,
        params: Vec<(u8, u8)>,
        space_before_base64: bool,
    },
}

#[derive(Arbitrary, Debug)]
struct Input {
    bytes: Vec<u8>,
    alphabet: Alphabet,
    pad: bool,
    wrap: Option<Wrap>,
    trailing: Vec<Space>,
    prefix: Prefix,
}

const STANDARD: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

fn encode(bytes: &[u8], alphabet: Alphabet, pad: bool) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len().div_ceil(3) * 4);
    let mut k = 0u32;
    let mut put = |out: &mut Vec<u8>, sextet: u32| {
        let c = STANDARD[sextet as usize];
        let url_safe = match alphabet {
            Alphabet::Standard => false,
            Alphabet::UrlSafe => true,
            Alphabet::Mixed(seed) => seed.rotate_right(k % 64) & 1 == 1,
        };
        k = k.wrapping_add(1);
        out.push(match (c, url_safe) {
            (b'+', true) => b'-',
            (b'/', true) => b'_',
            (c, _) => c,
        });
    };
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let bits = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        let chars = chunk.len() + 1;
        for i in 0..chars {
            put(&mut out, (bits >> (18 - 6 * i)) & 0x3F);
        }
        if pad {
            out.extend(std::iter::repeat_n(b'=', 4 - chars));
        }
    }
    out
}

fn cased(word: &str, case: &mut u64) -> String {
    word.chars()
        .map(|c| {
            let upper = *case & 1 == 1;
            *case = case.rotate_right(1);
            if upper {
                c.to_ascii_uppercase()
            } else {
                c
            }
        })
        .collect()
}

fn spaces(list: &[Space]) -> String {
    list.iter().map(|s| s.as_str()).collect()
}

fuzz_target!(|input: Input| {
    let encoded = encode(&input.bytes, input.alphabet, input.pad);
    let mut payload = String::new();
    match &input.wrap {
        Some(wrap) if !wrap.separator.is_empty() => {
            let sep = spaces(&wrap.separator);
            for (i, line) in encoded.chunks(usize::from(wrap.every.max(1))).enumerate() {
                if i > 0 {
                    payload.push_str(&sep);
                }
                payload.push_str(std::str::from_utf8(line).unwrap());
            }
        }
        _ => payload.push_str(std::str::from_utf8(&encoded).unwrap()),
    }
    payload.push_str(&spaces(&input.trailing));

    let expected = probe_bytes(&input.bytes);
    let text = match &input.prefix {
        Prefix::Bare { leading } => format!("{}{payload}", spaces(leading)),
        Prefix::DataUrl {
            leading,
            case,
            media,
            params,
            space_before_base64,
        } => {
            let mut case = *case;
            let media = match media {
                MediaType::None => String::new(),
                MediaType::Png => "image/png".into(),
                MediaType::Jpeg => "image/jpeg".into(),
                MediaType::Jpg => "image/jpg".into(),
                MediaType::Gif => "image/gif".into(),
                MediaType::Webp => "image/webp".into(),
                MediaType::Octet => "application/octet-stream".into(),
                MediaType::Other(raw) => raw
                    .iter()
                    .take(40)
                    .map(|b| char::from(b'a' + b % 26))
                    .collect(),
            };
            let mut url = format!(
                "{}{}{}",
                spaces(leading),
                cased("data:", &mut case),
                cased(&media, &mut case)
            );
            for (k, v) in params.iter().take(8) {
                url.push_str(&format!(";{}={}", char::from(b'a' + k % 26), v));
            }
            url.push(';');
            if *space_before_base64 {
                url.push(' ');
            }
            url.push_str(&cased("base64", &mut case));
            url.push(',');
            url.push_str(&payload);
            assert_eq!(probe_data_url(&url), expected, "{url:?}");
            url
        }
    };
    assert_eq!(probe_text(&text), expected, "{text:?}");
});
