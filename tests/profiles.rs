//! Provider image-token profiles against IMAGE_TOKENS.md: every published example (each test
//! names its source), the model-name mapping, `detail`, remote URLs, and properties over random
//! and extreme sizes (positive, no overflow, monotone where the provider's rule is).

use ankita::pricing::{price_image_url, price_image_url_with_size, ImageProfile};
use ankita::profiles::claude::{Anthropic, AnthropicLegacy};
use ankita::profiles::gemini::{self, Gemini3, MediaResolution};
use ankita::profiles::openai::{OpenAiPatch, OpenAiTile};
use ankita::profiles::qwen::QwenVl;
use ankita::profiles::{pixtral, TYPICAL_IMAGE_SIZES};
use ankita::ErrorCode;
use proptest::prelude::*;

fn named(name: &str) -> ImageProfile {
    ImageProfile::from_name(name).unwrap()
}

fn model(name: &str) -> ImageProfile {
    ImageProfile::from_model(name).unwrap_or_else(|e| panic!("{name}: {e}"))
}

// ---------------------------------------------------------------------------------------------
// Published examples
// ---------------------------------------------------------------------------------------------

#[test]
fn design_section_3_ankita_1700x2200_is_765() {
    assert_eq!(ImageProfile::default().tokens(1700, 2200, None), 765);
}

#[test]
fn openai_images_and_vision_calculating_costs_1024x1024_high_is_765() {
    assert_eq!(named("openai").tokens(1024, 1024, Some("high")), 765);
    assert_eq!(OpenAiTile::resize(1024, 1024), (768, 768));
}

#[test]
fn openai_images_and_vision_calculating_costs_2048x4096_high_is_1105() {
    assert_eq!(OpenAiTile::resize(2048, 4096), (768, 1536));
    assert_eq!(named("openai").tokens(2048, 4096, Some("high")), 1105);
}

#[test]
fn openai_images_and_vision_calculating_costs_4096x8192_low_is_85() {
    assert_eq!(named("openai").tokens(4096, 8192, Some("low")), 85);
}

#[test]
fn openai_images_and_vision_auto_is_billed_as_high() {
    let p = named("openai");
    for (w, h) in [(1024, 1024), (2048, 4096), (300, 200)] {
        assert_eq!(p.tokens(w, h, Some("auto")), p.tokens(w, h, Some("high")));
        assert_eq!(p.tokens(w, h, None), p.tokens(w, h, Some("high")));
    }
}

#[test]
fn openai_images_and_vision_tile_model_table_base_and_tile() {
    // 1024×1024 high is 4 tiles: base + 4·tile, and low is the base alone.
    let table: &[(&str, u64, u64)] = &[
        ("gpt-4o", 85, 170),
        ("gpt-4.1", 85, 170),
        ("gpt-4.5", 85, 170),
        ("gpt-4-turbo", 85, 170),
        ("gpt-5", 70, 140),
        ("gpt-5-chat-latest", 70, 140),
        ("gpt-5.1", 70, 140),
        ("gpt-4o-mini", 2833, 5667),
        ("o1", 75, 150),
        ("o1-pro", 75, 150),
        ("o3", 75, 150),
        ("computer-use-preview", 65, 129),
    ];
    for &(name, base, tile) in table {
        let p = model(name);
        assert_eq!(
            p.tokens(1024, 1024, Some("high")),
            base + 4 * tile,
            "{name}"
        );
        assert_eq!(p.tokens(1024, 1024, Some("low")), base, "{name}");
    }
}

#[test]
fn openai_patch_models_1024x1024_is_1024_patches() {
    assert_eq!(OpenAiPatch::gpt_4_1_mini_2025().patches(1024, 1024), 1024);
    assert_eq!(OpenAiPatch::gpt_4_1_mini().patches(1024, 1024), 1024);
}

#[test]
fn openai_patch_models_1800x2400_is_1056x1408_and_1452_patches_at_budget_1536() {
    let m = OpenAiPatch::gpt_4_1_mini_2025();
    assert_eq!(m.resize(1800, 2400), (1056, 1408));
    assert_eq!(m.patches(1800, 2400), 1452);
    assert_eq!(m.patches(2400, 1800), 1452);
}

#[test]
fn openai_patch_models_2026_budgets() {
    // 2026 docs: gpt-4.1-mini and gpt-5.2 at 6144, so 1800×2400 (57 × 75 = 4275) is whole.
    for name in ["gpt-4.1-mini", "gpt-5.2"] {
        let ImageProfile::OpenAiPatch(m) = model(name) else {
            panic!("{name} is a patch model")
        };
        assert_eq!((m.budget, m.patches(1800, 2400)), (6144, 4275), "{name}");
    }
    // gpt-5.4 … 5.6 at 2500 (high).
    for name in ["gpt-5.4", "gpt-5.5", "gpt-5.6"] {
        let ImageProfile::OpenAiPatch(m) = model(name) else {
            panic!("{name} is a patch model")
        };
        assert_eq!(m.budget, 2500, "{name}");
        assert!(m.patches(1800, 2400) <= 2500, "{name}");
    }
    assert_eq!(model("gpt-4.1-mini@2025"), named("openai-patch"));
}

#[test]
fn openai_patch_models_multipliers_2025_and_2026() {
    // tokens = ceil(1024 patches × multiplier), multipliers exact in hundredths.
    let table: &[(&str, u64)] = &[
        ("gpt-4.1-mini", 1659),      // × 1.62 = 1658.88
        ("gpt-4.1-mini@2025", 1659), // × 1.62
        ("gpt-4.1-nano", 2520),      // × 2.46 = 2519.04
        ("o4-mini", 1762),           // × 1.72 = 1761.28
        ("gpt-5-mini", 1229),        // 2026: × 1.2 = 1228.8
        ("gpt-5-mini@2025", 1659),   // 2025: × 1.62
        ("gpt-5-nano", 1536),        // 2026: × 1.5
        ("gpt-5-nano@2025", 2520),   // 2025: × 2.46
        ("gpt-5.2", 1229),           // × 1.2
        ("gpt-5.4", 1229),
        ("gpt-5.5", 1229),
    ];
    for &(name, want) in table {
        assert_eq!(model(name).tokens(1024, 1024, None), want, "{name}");
    }
}

#[test]
fn anthropic_vision_docs_200x200_is_64() {
    assert_eq!(named("anthropic").tokens(200, 200, None), 64);
    assert_eq!(named("anthropic-highres").tokens(200, 200, None), 64);
}

#[test]
fn anthropic_vision_docs_1000x1000_is_1296() {
    assert_eq!(named("anthropic").tokens(1000, 1000, None), 1296);
}

#[test]
fn anthropic_vision_docs_1092x1092_is_1521() {
    assert_eq!(named("anthropic").tokens(1092, 1092, None), 1521);
    // 1092 × 1092 is also the largest square the standard tier keeps.
    assert_eq!(Anthropic::standard().resize(5000, 5000), (1092, 1092));
}

#[test]
fn anthropic_vision_docs_tier_limits() {
    for (tier, edge, max) in [
        (Anthropic::standard(), 1568, 1568),
        (Anthropic::high_res(), 2576, 4784),
    ] {
        for (w, h) in [
            (8000, 8000),
            (8000, 100),
            (100, 8000),
            (6000, 4000),
            (1, 65535),
        ] {
            let (rw, rh) = tier.resize(w, h);
            assert!(
                rw.div_ceil(28) * 28 <= edge && rh.div_ceil(28) * 28 <= edge,
                "{w}x{h}"
            );
            assert!(tier.tokens(w, h) <= max, "{w}x{h}");
        }
    }
    // 2000 × 2000 is 72² = 5184 units: the high-resolution tier shrinks it to 69² = 4761, far
    // above the standard tier's cap.
    assert_eq!(Anthropic::high_res().tokens(2000, 2000), 4761);
}

#[test]
fn anthropic_legacy_docs_1000x1000_is_about_1334() {
    assert_eq!(named("anthropic-legacy").tokens(1000, 1000, None), 1334);
    assert_eq!(AnthropicLegacy::resize(1000, 1000), (1000, 1000));
}

#[test]
fn anthropic_legacy_follows_the_table_of_sizes_sent_as_is() {
    // The older vision documentation: the largest sizes that are not resized, per aspect ratio,
    // and 1092×1092 (1.19 MP) at ~1,590 tokens.
    for (w, h) in [
        (1092, 1092),
        (951, 1268),
        (896, 1344),
        (819, 1456),
        (784, 1568),
    ] {
        assert_eq!(
            AnthropicLegacy::resize(w, h),
            (w.into(), h.into()),
            "{w}x{h}"
        );
        assert_eq!(
            AnthropicLegacy::resize(h, w),
            (h.into(), w.into()),
            "{h}x{w}"
        );
    }
    assert_eq!(named("anthropic-legacy").tokens(1092, 1092, None), 1590);
    // Over the long edge: scaled to 1568.
    assert_eq!(AnthropicLegacy::resize(3136, 1000), (1568, 500));
}

#[test]
fn gemini_docs_960x540_is_6_tiles_1548() {
    assert_eq!(gemini::crop_unit(960, 540, None), 360);
    assert_eq!(named("gemini").tokens(960, 540, None), 1548);
}

#[test]
fn gemini_docs_small_image_is_258() {
    for (w, h) in [(1, 1), (384, 384), (384, 1), (200, 300)] {
        assert_eq!(named("gemini").tokens(w, h, None), 258, "{w}x{h}");
        assert_eq!(named("gemini-1.5").tokens(w, h, None), 258, "{w}x{h}");
    }
}

#[test]
fn gemini_1_5_docs_crop_unit_is_clamped_to_256_768() {
    assert_eq!(gemini::crop_unit(385, 385, Some((256, 768))), 256);
    assert_eq!(gemini::crop_unit(3000, 3000, Some((256, 768))), 768);
    // 960×540: unit 360 is inside the clamp, so 1.5 agrees with 2.x there.
    assert_eq!(named("gemini-1.5").tokens(960, 540, None), 1548);
    // 3072×3072: unit 2048 under 2.x (4 tiles), 768 under 1.5 (16 tiles).
    assert_eq!(named("gemini").tokens(3072, 3072, None), 4 * 258);
    assert_eq!(named("gemini-1.5").tokens(3072, 3072, None), 16 * 258);
}

#[test]
fn gemini_3_docs_media_resolution_low_medium_high_ultra_high() {
    let p = named("gemini-3");
    let want = [
        ("low", 280),
        ("medium", 560),
        ("high", 1120),
        ("ultra_high", 2240),
    ];
    for (level, tokens) in want {
        for (w, h) in [(1, 1), (1024, 1024), (65535, 3)] {
            assert_eq!(p.tokens(w, h, Some(level)), tokens, "{level} {w}x{h}");
        }
    }
    assert_eq!(p.tokens(4000, 3000, None), 1120, "default is high");
    assert_eq!(
        p.tokens(4000, 3000, Some("auto")),
        1120,
        "auto is the default"
    );
    let low_default = ImageProfile::Gemini3(Gemini3 {
        default_resolution: MediaResolution::Low,
    });
    assert_eq!(low_default.tokens(10, 10, None), 280);
    assert_eq!(low_default.tokens(10, 10, Some("high")), 1120);
}

#[test]
fn qwen2_vl_smart_resize_defaults() {
    // Doc defaults: unit 28, min_pixels 3136 (2×2 units), max_pixels 12845056 (128×128 units).
    let q = QwenVl::model_default();
    assert_eq!((q.min_pixels, q.max_pixels), (3136, 12_845_056));
    assert_eq!(named("qwen2-vl").tokens(1, 1, None), 2 * 2 + 2);
    assert_eq!(named("qwen2-vl").tokens(8000, 8000, None), 128 * 128 + 2);
    assert_eq!(named("qwen2-vl").tokens(1000, 1000, None), 36 * 36 + 2);
    // Servers' 256·28² … 1280·28²: between 256 and 1280 units.
    let s = QwenVl::server_typical();
    assert_eq!(s.tokens(1, 1), 16 * 16 + 2);
    assert_eq!(s.resize(8000, 8000), (35 * 28, 35 * 28)); // 35² = 1225 ≤ 1280 < 36²
}

#[test]
fn pixtral_12b_1024x1024_is_4160() {
    assert_eq!(named("pixtral").tokens(1024, 1024, None), 4160);
    assert_eq!(pixtral::tokens(2048, 2048), 4160);
    assert_eq!(pixtral::tokens(16, 16), 2);
}

// ---------------------------------------------------------------------------------------------
// Names and models
// ---------------------------------------------------------------------------------------------

#[test]
fn profile_names_round_trip_and_unknown_lists_all() {
    for &name in ImageProfile::NAMES {
        assert_eq!(named(name).name(), name);
    }
    assert_eq!(ImageProfile::default(), named("ankita"));
    let err = ImageProfile::from_name("claude").unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidRequest);
    assert_eq!(err.path.as_deref(), Some("image_profile"));
    for name in ImageProfile::NAMES {
        assert!(
            err.message.contains(name),
            "{name} missing: {}",
            err.message
        );
    }
}

#[test]
fn from_model_maps_names_to_rules_and_parameters() {
    use ImageProfile as P;
    let tile = P::OpenAi;
    let patch = P::OpenAiPatch;
    let cases: Vec<(&str, ImageProfile)> = vec![
        ("gpt-4o", tile(OpenAiTile::gpt_4o())),
        ("gpt-4o-2024-08-06", tile(OpenAiTile::gpt_4o())),
        ("openai/gpt-4o", tile(OpenAiTile::gpt_4o())),
        ("GPT-4o", tile(OpenAiTile::gpt_4o())),
        ("gpt-4o-mini", tile(OpenAiTile::gpt_4o_mini())),
        ("gpt-4o-mini-2024-07-18", tile(OpenAiTile::gpt_4o_mini())),
        ("gpt-4.1", tile(OpenAiTile::gpt_4o())),
        ("gpt-4.1-2025-04-14", tile(OpenAiTile::gpt_4o())),
        ("gpt-4.1-mini", patch(OpenAiPatch::gpt_4_1_mini())),
        ("gpt-4.1-mini@2025", patch(OpenAiPatch::gpt_4_1_mini_2025())),
        ("gpt-4.1-mini@2026", patch(OpenAiPatch::gpt_4_1_mini())),
        ("gpt-4.1-nano", patch(OpenAiPatch::gpt_4_1_nano())),
        ("o4-mini", patch(OpenAiPatch::o4_mini())),
        ("o4-mini-2025-04-16", patch(OpenAiPatch::o4_mini())),
        ("o3", tile(OpenAiTile::o_series())),
        ("o3-2025-04-16", tile(OpenAiTile::o_series())),
        ("gpt-5", tile(OpenAiTile::gpt_5())),
        ("gpt-5-2025-08-07", tile(OpenAiTile::gpt_5())),
        ("gpt-5.1-codex", tile(OpenAiTile::gpt_5())),
        ("gpt-5-mini", patch(OpenAiPatch::gpt_5_mini())),
        ("gpt-5-mini-2025-08-07", patch(OpenAiPatch::gpt_5_mini())),
        ("gpt-5-mini@2025", patch(OpenAiPatch::gpt_5_mini_2025())),
        ("gpt-5-nano@2025", patch(OpenAiPatch::gpt_5_nano_2025())),
        ("gpt-5.4-mini", patch(OpenAiPatch::gpt_5_4())),
        ("claude-sonnet-4", P::Anthropic(Anthropic::standard())),
        (
            "claude-sonnet-4-20250514",
            P::Anthropic(Anthropic::standard()),
        ),
        (
            "claude-opus-4-1-20250805",
            P::Anthropic(Anthropic::standard()),
        ),
        ("claude-3-5-sonnet", P::Anthropic(Anthropic::standard())),
        (
            "claude-3-5-sonnet-20241022",
            P::Anthropic(Anthropic::standard()),
        ),
        (
            "anthropic/claude-3.5-sonnet",
            P::Anthropic(Anthropic::standard()),
        ),
        (
            "claude-3-5-sonnet-v2@20241022",
            P::Anthropic(Anthropic::standard()),
        ),
        (
            "us.anthropic.claude-3-5-sonnet-20240620-v1:0",
            P::Anthropic(Anthropic::standard()),
        ),
        ("claude-opus-4-7", P::Anthropic(Anthropic::high_res())),
        (
            "anthropic/claude-opus-4.7",
            P::Anthropic(Anthropic::high_res()),
        ),
        ("claude-opus-4-8", P::Anthropic(Anthropic::high_res())),
        ("claude-sonnet-5", P::Anthropic(Anthropic::high_res())),
        ("gemini-2.5-flash", P::Gemini),
        ("models/gemini-2.0-flash-001", P::Gemini),
        ("gemini-1.5-pro", P::Gemini15),
        ("gemini-1.5-flash-002", P::Gemini15),
        ("gemini-3-pro", P::Gemini3(Gemini3::default())),
        ("gemini-3-pro-preview", P::Gemini3(Gemini3::default())),
        ("google/gemini-3.1-pro", P::Gemini3(Gemini3::default())),
        ("qwen2.5-vl-7b", P::QwenVl(QwenVl::model_default())),
        (
            "Qwen/Qwen2.5-VL-7B-Instruct",
            P::QwenVl(QwenVl::model_default()),
        ),
        ("qwen2-vl-72b", P::QwenVl(QwenVl::model_default())),
        ("qwen2.5vl:7b", P::QwenVl(QwenVl::model_default())),
        ("pixtral-12b", P::Pixtral),
        ("mistralai/Pixtral-12B-2409", P::Pixtral),
    ];
    for (name, want) in cases {
        assert_eq!(model(name), want, "{name}");
    }
}

#[test]
fn from_model_does_not_stretch_families() {
    // A `.` does not separate a suffix, unknown `@` tags are refused, and families the spec
    // does not price are unknown rather than guessed.
    for name in [
        "gpt-5.3",
        "gpt-4",
        "gpt-4o@2024",
        "claude-instant",
        "gemini-exp-1206",
        "gemini-1.0-pro-vision",
        "pixtral-large",
        "llava-1.6",
        "",
    ] {
        assert!(ImageProfile::from_model(name).is_err(), "{name}");
    }
}

#[test]
fn unknown_model_error_lists_known_models() {
    let err = ImageProfile::from_model("llava-v1.6-34b").unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidRequest);
    assert_eq!(err.path.as_deref(), Some("model"));
    assert!(err.message.contains("llava-v1.6-34b"), "{}", err.message);
    for name in ImageProfile::KNOWN_MODELS {
        assert!(
            err.message.contains(name),
            "{name} missing: {}",
            err.message
        );
    }
}

#[test]
fn every_known_model_resolves() {
    for name in ImageProfile::KNOWN_MODELS {
        assert!(ImageProfile::from_model(name).is_ok(), "{name}");
    }
}

// ---------------------------------------------------------------------------------------------
// detail
// ---------------------------------------------------------------------------------------------

#[test]
fn detail_is_ignored_outside_openai_tiles_and_gemini_3() {
    let ignoring = [
        "ankita",
        "openai-patch",
        "anthropic",
        "anthropic-highres",
        "anthropic-legacy",
        "gemini",
        "gemini-1.5",
        "qwen2-vl",
        "pixtral",
    ];
    for name in ignoring {
        let p = named(name);
        for (w, h) in [(1024, 1024), (4000, 3000), (17, 9000)] {
            let full = p.tokens(w, h, None);
            for detail in ["low", "high", "auto", "ultra_high"] {
                assert_eq!(
                    p.tokens(w, h, Some(detail)),
                    full,
                    "{name} {detail} {w}x{h}"
                );
            }
        }
    }
    // "low" in any case; an unknown value is priced at full detail.
    let openai = named("openai");
    assert_eq!(openai.tokens(4096, 4096, Some(" LOW ")), 85);
    assert_eq!(openai.tokens(4096, 4096, Some("lowest")), 765);
}

// ---------------------------------------------------------------------------------------------
// Remote URLs
// ---------------------------------------------------------------------------------------------

fn all_profiles() -> Vec<ImageProfile> {
    let mut all: Vec<ImageProfile> = ImageProfile::NAMES.iter().map(|n| named(n)).collect();
    all.extend(ImageProfile::KNOWN_MODELS.iter().map(|m| model(m)));
    all.push(ImageProfile::QwenVl(QwenVl::server_typical()));
    all.extend(MediaResolution::all().map(|r| {
        ImageProfile::Gemini3(Gemini3 {
            default_resolution: r,
        })
    }));
    all.dedup();
    all
}

#[test]
fn remote_url_costs_the_most_expensive_typical_image() {
    for p in all_profiles() {
        for detail in [None, Some("low"), Some("high")] {
            let want = TYPICAL_IMAGE_SIZES
                .iter()
                .flat_map(|&(w, h)| [p.tokens(w, h, detail), p.tokens(h, w, detail)])
                .max()
                .unwrap();
            assert_eq!(p.remote_image_tokens(detail), want, "{p:?} {detail:?}");
        }
    }
}

#[test]
fn remote_url_is_the_profiles_maximum_where_it_has_one() {
    // Each of these rules has a maximum (its resize caps the image), and a typical size reaches
    // it: 8 tiles (768 × 2048) for OpenAI, the patch budget, the tier's token cap, 128² units,
    // 64 × 65 patches, the default media resolution.
    let caps: &[(&str, u64)] = &[
        ("openai", 85 + 8 * 170),
        ("openai-patch", 2489), // ceil(1536 × 1.62)
        ("anthropic", 1568),
        ("anthropic-highres", 4784),
        ("qwen2-vl", 128 * 128 + 2),
        ("pixtral", 4160),
        ("gemini-3", 1120),
    ];
    for &(name, cap) in caps {
        assert_eq!(named(name).remote_image_tokens(None), cap, "{name}");
    }
    // The legacy maximum, ceil(784 × 1568 / 750) = 1640, needs exactly the table's pixels; the
    // largest typical size gets 1639.
    assert_eq!(named("anthropic-legacy").remote_image_tokens(None), 1639);
    assert_eq!(named("openai").remote_image_tokens(Some("low")), 85);
    assert_eq!(named("gemini-3").remote_image_tokens(Some("low")), 280);
    // No maximum: the most expensive typical shape, a phone screenshot (2 × 4 crop units).
    assert_eq!(named("gemini").remote_image_tokens(None), 8 * 258);
}

#[test]
fn remote_url_is_never_priced_by_its_length() {
    let long = format!("https://example.com/cat.png?{}", "q".repeat(100_000));
    for url in [
        "https://example.com/cat.png",
        "http://x.y/z.jpg",
        "HTTPS://X/Y",
        long.as_str(),
    ] {
        for p in all_profiles() {
            let price = price_image_url(url, p, None, 4);
            let tokens = p.remote_image_tokens(None);
            assert_eq!(price.tokens, Some(tokens), "{url} {p:?}");
            assert_eq!(price.budget_bytes, tokens * 4, "{url} {p:?}");
        }
    }
}

#[test]
fn remote_url_with_a_caller_size_is_priced_at_that_size() {
    let url = "https://example.com/cat.png";
    for p in all_profiles() {
        let price = price_image_url_with_size(url, Some((1800, 2400)), p, Some("high"), 4);
        assert_eq!(
            price.tokens,
            Some(p.tokens(1800, 2400, Some("high"))),
            "{p:?}"
        );
    }
}

#[test]
fn data_urls_keep_their_header_price_and_other_text_its_length() {
    // A 1700 × 2200 GIF header: priced by its pixels whatever size the caller claims.
    let gif = "data:image/gif;base64,R0lGODlhpAaYCPcAAA==";
    for p in all_profiles() {
        let price = price_image_url_with_size(gif, Some((1, 1)), p, None, 4);
        assert_eq!(price.tokens, Some(p.tokens(1700, 2200, None)), "{p:?}");
    }
    for text in [
        "ftp://example.com/cat.png",
        "cat.png",
        "data:image/bmp;base64,Qk0=",
    ] {
        let price = price_image_url(text, named("openai"), None, 4);
        assert_eq!(
            (price.tokens, price.budget_bytes),
            (None, text.len() as u64)
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Properties
// ---------------------------------------------------------------------------------------------

/// Profiles whose rule never charges a larger image of the same aspect ratio less.
fn monotone_profiles() -> Vec<ImageProfile> {
    vec![
        named("anthropic"),
        named("anthropic-highres"),
        named("anthropic-legacy"),
        named("pixtral"),
        named("gemini-3"),
    ]
}

#[test]
fn extreme_sizes_are_positive_and_do_not_overflow() {
    let edges = [
        0,
        1,
        2,
        27,
        28,
        29,
        383,
        384,
        385,
        768,
        2048,
        65535,
        65536,
        u32::MAX - 1,
        u32::MAX,
    ];
    for p in all_profiles() {
        for &w in &edges {
            for &h in &edges {
                for detail in [None, Some("low"), Some("high")] {
                    assert!(p.tokens(w, h, detail) >= 1, "{p:?} {w}x{h}");
                }
            }
        }
    }
}

/// A width × height.
type Size = (u32, u32);

/// The documented exceptions to monotonicity, one witness each (see `ImageProfile`'s docs).
#[test]
fn non_monotone_profiles_have_the_documented_witnesses() {
    let witnesses: &[(&str, Size, Size)] = &[
        // Two floors, the second scaling the short side up to 768.
        ("ankita", (561, 2244), (562, 2248)),
        // The 2048 fit rounds 1536 × 2050 to 1535 × 2048; the 768 step then floors to 1024.
        ("openai", (768, 1025), (1536, 2050)),
        // 1530 patches fit the budget whole; one more pixel and it is cut to 14 × 98.
        ("openai-patch", (466, 3262), (467, 3269)),
        // Crop unit 129 vs 130: ceil(388/129) = 4, ceil(390/130) = 3.
        ("gemini", (194, 388), (195, 390)),
        ("gemini-1.5", (386, 772), (387, 774)),
        // 32 × 96 rounds below min_pixels and is enlarged with ceil; 33 × 99 rounds to just
        // enough and is kept.
        ("qwen2-vl", (32, 96), (33, 99)),
    ];
    for &(name, small, large) in witnesses {
        let p = named(name);
        let (a, b) = (
            p.tokens(small.0, small.1, None),
            p.tokens(large.0, large.1, None),
        );
        assert!(a > b, "{name}: {small:?} → {a}, {large:?} → {b}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn every_profile_is_positive_for_sizes_up_to_65535(w in 1u32..=65535, h in 1u32..=65535) {
        for p in all_profiles() {
            for detail in [None, Some("low"), Some("auto")] {
                prop_assert!(p.tokens(w, h, detail) >= 1, "{:?} {}x{}", p, w, h);
            }
        }
    }

    #[test]
    fn every_profile_is_positive_for_any_u32(w in any::<u32>(), h in any::<u32>()) {
        for p in all_profiles() {
            prop_assert!(p.tokens(w, h, None) >= 1, "{:?} {}x{}", p, w, h);
        }
    }

    #[test]
    fn monotone_profiles_never_charge_a_scaled_up_image_less(
        w in 1u32..=4096,
        h in 1u32..=4096,
        k1 in 1u32..=64,
        extra in 1u32..=64,
    ) {
        let k2 = k1 + extra;
        for p in monotone_profiles() {
            let small = p.tokens(w.saturating_mul(k1), h.saturating_mul(k1), None);
            let large = p.tokens(w.saturating_mul(k2), h.saturating_mul(k2), None);
            prop_assert!(small <= large, "{:?}: {}x{} ×{} → {}, ×{} → {}", p, w, h, k1, small, k2, large);
        }
    }

    #[test]
    fn resizes_respect_their_limits(w in 1u32..=65535, h in 1u32..=65535) {
        let (tw, th) = OpenAiTile::resize(w, h);
        prop_assert!(tw.max(th) <= 2048 && tw.min(th) <= 768);
        for m in [OpenAiPatch::gpt_4_1_mini_2025(), OpenAiPatch::gpt_4_1_mini(), OpenAiPatch::gpt_5_4()] {
            let (pw, ph) = m.resize(w, h);
            prop_assert!(pw <= u64::from(w) && ph <= u64::from(h));
            let whole = u64::from(w).div_ceil(32) * u64::from(h).div_ceil(32);
            prop_assert!(m.patches(w, h) <= whole);
            if whole > u64::from(m.budget) {
                prop_assert!(m.patches(w, h) <= u64::from(m.budget));
            }
        }
        for tier in [Anthropic::standard(), Anthropic::high_res()] {
            let (aw, ah) = tier.resize(w, h);
            prop_assert!(tier.fits(aw, ah) && aw <= u64::from(w) && ah <= u64::from(h));
        }
        let (lw, lh) = AnthropicLegacy::resize(w, h);
        prop_assert!(lw.max(lh) <= 1568 && lw * lh <= 784 * 1568);
        for q in [QwenVl::model_default(), QwenVl::server_typical()] {
            let (qw, qh) = q.resize(w, h);
            prop_assert!(qw % 28 == 0 && qh % 28 == 0 && qw >= 28 && qh >= 28);
            // Within max_pixels unless a side is already down to one unit.
            prop_assert!(qw * qh <= q.max_pixels || qw == 28 || qh == 28);
        }
        let (xw, xh) = pixtral::resize(w, h);
        prop_assert!(xw.max(xh) <= 1024);
    }
}

/// The AI SDK's `providerOptions.openai.imageDetail` (what its OpenAI provider sends as the
/// image's `detail`) prices an image as OpenAI chat's `detail` does, in an `image` part and an
/// image `file` part, under an OpenAI model; under another provider's model it is ignored.
#[test]
fn ai_sdk_image_detail_is_openai_detail() {
    use base64::Engine as _;
    let png = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/examples/screenshots/calendar-error-dialog.png"
    ))
    .unwrap();
    let url = format!(
        "data:image/png;base64,{}",
        base64::engine::general_purpose::STANDARD.encode(&png)
    );
    let cost = |format: &str, part: serde_json::Value, model: &str| -> u64 {
        let request = serde_json::json!({
            "format": format,
            "model": model,
            "messages": [{"role": "user", "content": [part]}],
        });
        let count = ankita::api::count_value(&request.to_string()).unwrap();
        count["total"].as_u64().unwrap()
    };
    let chat = |detail: &str| serde_json::json!({"type": "image_url", "image_url": {"url": url, "detail": detail}});
    let with = |detail: Option<&str>| {
        let mut part = serde_json::json!({"type": "image", "image": url});
        if let Some(d) = detail {
            part["providerOptions"] = serde_json::json!({"openai": {"imageDetail": d}});
        }
        part
    };
    let file = |detail: &str| {
        serde_json::json!({"type": "file", "data": url, "mediaType": "image/png",
            "providerOptions": {"openai": {"imageDetail": detail}}})
    };
    // 1024 × 768 under gpt-4o: 765 tokens at full detail, 85 at low.
    let saved = cost("openai", chat("high"), "gpt-4o") - cost("openai", chat("low"), "gpt-4o");
    assert_eq!(saved, 765 - 85);
    let sdk = |part| cost("ai-sdk", part, "gpt-4o");
    assert_eq!(sdk(with(Some("high"))) - sdk(with(Some("low"))), saved);
    assert_eq!(sdk(with(None)), sdk(with(Some("high"))));
    assert_eq!(sdk(file("high")) - sdk(file("low")), saved);
    // Another provider does not read OpenAI's options.
    let claude = |part| cost("ai-sdk", part, "claude-sonnet-4-5");
    assert_eq!(claude(with(Some("low"))), claude(with(None)));
}
