//! The parameter tables of the README (the user tier) and of
//! `docs/parameters.md` (every key) are the ones `vegas_cc::spec`'s table
//! makes: a key, a default or a value added to the table and not to the
//! docs fails here (`cargo xtask docs` rewrites them).

use std::path::Path;

use quiche_vegas::vegas_cc::spec::keys_markdown;
use quiche_vegas::vegas_cc::spec::Tier;

const START: &str = "<!-- cargo xtask docs: generated from here -->";
const END: &str = "<!-- cargo xtask docs: generated up to here -->";

fn generated_section(file: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(file);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{file}: {e}"));
    let a = text
        .find(START)
        .unwrap_or_else(|| panic!("{file}: no `{START}`"));
    let b = text
        .find(END)
        .unwrap_or_else(|| panic!("{file}: no `{END}`"));
    text[a + START.len()..b].trim().to_string()
}

fn check(file: &str, tier: Option<Tier>) {
    let want = keys_markdown(tier);
    assert!(
        generated_section(file) == want.trim(),
        "{file}'s parameter table is stale: run `cargo xtask docs`"
    );
}

#[test]
fn the_readme_lists_the_user_tier_as_the_table_has_it() {
    check("README.md", Some(Tier::User));
}

#[test]
fn docs_parameters_lists_every_key_as_the_table_has_it() {
    check("docs/parameters.md", None);
    // Every key is in it, once per controller table.
    let section = generated_section("docs/parameters.md");
    for key in quiche_vegas::vegas_cc::spec::VEGAS_KEYS {
        assert!(
            section.contains(&format!("| `{}` |", key.name)),
            "{}",
            key.name
        );
    }
}
