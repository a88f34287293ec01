//! A scenario's `[paper]` section: what a paper published for the
//! experiment the scenario re-runs, and how each number is compared with
//! ours (`vegas-lab reproduce`, `docs/reproduction.md`).
//!
//! ```toml
//! [paper]
//! source = "Brakmo & Peterson 1995, Table I"
//! claim = "Vegas gets 37-71% more throughput than Reno"
//! seeds = [1, 2, 3]                 # runs averaged (default: the scenario's seed)
//! choices = ["1 KB segments -> 1200-byte datagrams: \"...\" (III)"]
//! note = "why it does or does not hold, written after looking"   # optional
//!
//! [[paper.numbers]]
//! what = "Vegas / Reno throughput"
//! paper = 1.37
//! unit = "ratio"
//! ours = "flows.1.goodput_bps / flows.0.goodput_bps"
//! holds = ">= 1.0"
//! ```
//!
//! `ours` is terms joined by `*` and `/`, left to right; a term is a
//! number or a path into the JSON summary: `flows.N.FIELD`,
//! `flows[ALGORITHM].FIELD` (mean over the flows of that algorithm, `*`
//! for all), `links.NAME.FIELD`, or a top-level field. `holds` is the
//! claim's test on our mean: `>= X`, `<= X`, `> X`, `< X`, `within P%` (of
//! the paper's value) or `between A B`. A path that names no number in a
//! run (a flow that never left slow start has no exit window) makes the
//! number "no value" for that run.

use anyhow::anyhow;
use anyhow::bail;
use anyhow::Result;
use serde::Deserialize;
use serde_json::Value;

/// The `[paper]` section of a scenario.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct PaperSection {
    /// Paper and table or figure, by name.
    pub source: String,
    /// The paper's claim for this experiment, in one line.
    pub claim: String,
    /// For figure-type experiments: what the paper's figure shows.
    #[serde(default)]
    pub figure: Option<String>,
    /// Seeds to run and average; empty: the scenario's own seed.
    #[serde(default)]
    pub seeds: Vec<u64>,
    /// Every ambiguous or TCP-specific choice, with the sentence it rests on.
    #[serde(default)]
    pub choices: Vec<String>,
    /// Why the claim does or does not hold on QUIC, one line. Its first
    /// words name the cause of a claim that does not hold (`QUIC vs TCP:`,
    /// `Ambiguity:`, `Cannot express:`, `Algorithm:`), unless `cause` does.
    #[serde(default)]
    pub note: Option<String>,
    /// The cause of a claim that does not hold, when the note's first words
    /// do not say it ([`Cause`]).
    #[serde(default)]
    pub cause: Option<Cause>,
    #[serde(default)]
    pub numbers: Vec<PaperNumber>,
}

/// Why a claim does not hold on QUIC: the report's "by cause" table.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq, PartialOrd, Ord)]
#[serde(rename_all = "kebab-case")]
pub enum Cause {
    /// Our algorithm differs from the paper's (a bug, or a reading of its
    /// pseudo code the paper's own runs did not follow).
    Algorithm,
    /// QUIC (or the QUIC stack) does what the paper's TCP did not, and no
    /// faithful option of ours removes it.
    QuicVsTcp,
    /// The paper leaves out what the result depends on.
    Ambiguity,
    /// The simulator cannot express the paper's set-up.
    CannotExpress,
    /// Neither the note nor `cause` says.
    Unclassified,
}

impl Cause {
    /// All, in the report's order.
    pub const ALL: [Cause; 5] = [
        Cause::Algorithm,
        Cause::QuicVsTcp,
        Cause::Ambiguity,
        Cause::CannotExpress,
        Cause::Unclassified,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Cause::Algorithm => "algorithm",
            Cause::QuicVsTcp => "QUIC vs TCP",
            Cause::Ambiguity => "ambiguity",
            Cause::CannotExpress => "cannot express",
            Cause::Unclassified => "unclassified",
        }
    }

    /// `paper.cause`, or the cause the note's first words name.
    pub fn of(paper: &PaperSection) -> Cause {
        if let Some(cause) = paper.cause {
            return cause;
        }
        let note = paper
            .note
            .as_deref()
            .unwrap_or("")
            .trim_start()
            .to_lowercase();
        [
            ("quic vs tcp", Cause::QuicVsTcp),
            ("ambiguity", Cause::Ambiguity),
            ("cannot express", Cause::CannotExpress),
            ("algorithm", Cause::Algorithm),
        ]
        .into_iter()
        .find_map(|(words, cause)| note.starts_with(words).then_some(cause))
        .unwrap_or(Cause::Unclassified)
    }
}

/// One published number and the figure of ours it is held against.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct PaperNumber {
    pub what: String,
    pub paper: f64,
    #[serde(default)]
    pub unit: String,
    pub ours: String,
    pub holds: String,
    /// The paper's headline claim this number tests, in the paper's words:
    /// the report gathers the numbers of each headline in one section.
    #[serde(default)]
    pub headline: Option<String>,
}

impl PaperSection {
    /// Checks every expression and test; the error names the number.
    pub fn validate(&self) -> Result<()> {
        if self.numbers.is_empty() {
            bail!("field `paper.numbers`: empty; allowed: at least one [[paper.numbers]]");
        }
        for (i, n) in self.numbers.iter().enumerate() {
            Expr::parse(&n.ours)
                .map_err(|e| anyhow!("field `paper.numbers.{i}.ours`: value `{}`: {e}", n.ours))?;
            Test::parse(&n.holds).map_err(|e| {
                anyhow!("field `paper.numbers.{i}.holds`: value `{}`: {e}", n.holds)
            })?;
            if !n.paper.is_finite() {
                bail!(
                    "field `paper.numbers.{i}.paper`: value {}; allowed: a finite number",
                    n.paper
                );
            }
        }
        Ok(())
    }
}

/// A term of an `ours` expression.
#[derive(Clone, Debug, PartialEq)]
enum Term {
    Number(f64),
    /// Dotted path; a `flows[ALGO]` segment averages over matching flows.
    Path(Vec<String>),
}

/// `ours`: terms joined by `*` and `/`, evaluated left to right.
#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    first: Term,
    rest: Vec<(char, Term)>,
}

impl Expr {
    pub fn parse(text: &str) -> Result<Expr> {
        let mut terms = Vec::new();
        let mut ops = Vec::new();
        let mut current = String::new();
        for c in text.chars() {
            if c == '*' && !current.trim_end().ends_with('[') || c == '/' {
                terms.push(parse_term(&current)?);
                ops.push(c);
                current.clear();
            } else {
                current.push(c);
            }
        }
        terms.push(parse_term(&current)?);
        let mut terms = terms.into_iter();
        let first = terms.next().expect("at least one term");
        Ok(Expr {
            first,
            rest: ops.into_iter().zip(terms).collect(),
        })
    }

    /// The value over one run's JSON summary; None where a path names no
    /// number.
    pub fn eval(&self, summary: &Value) -> Option<f64> {
        let mut value = eval_term(&self.first, summary)?;
        for (op, term) in &self.rest {
            let x = eval_term(term, summary)?;
            value = if *op == '*' { value * x } else { value / x };
        }
        value.is_finite().then_some(value)
    }
}

fn parse_term(text: &str) -> Result<Term> {
    let text = text.trim();
    if text.is_empty() {
        bail!("an empty term; expected a number or a summary path");
    }
    if let Ok(x) = text.parse::<f64>() {
        return Ok(Term::Number(x));
    }
    let segments: Vec<String> = text.split('.').map(str::to_string).collect();
    let valid = |s: &String| {
        !s.is_empty()
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || "_-[]*".contains(c))
    };
    if !segments.iter().all(valid) {
        bail!("`{text}` is not a summary path (segments of letters, digits, `_`, `-`, `[ALGO]`)");
    }
    if let Some(first) = segments.first() {
        if first.contains('[') && !(first.starts_with("flows[") && first.ends_with(']')) {
            bail!("`{first}`: only `flows[ALGORITHM]` or `flows[*]` may select");
        }
    }
    Ok(Term::Path(segments))
}

fn eval_term(term: &Term, summary: &Value) -> Option<f64> {
    match term {
        Term::Number(x) => Some(*x),
        Term::Path(segments) => {
            let (first, rest) = segments.split_first()?;
            if let Some(algorithm) = first
                .strip_prefix("flows[")
                .and_then(|s| s.strip_suffix(']'))
            {
                let values: Vec<f64> = summary
                    .get("flows")?
                    .as_array()?
                    .iter()
                    .filter(|f| {
                        algorithm == "*"
                            || f.get("algorithm").and_then(Value::as_str) == Some(algorithm)
                    })
                    .map(|f| lookup(f, rest))
                    .collect::<Option<_>>()?;
                return (!values.is_empty())
                    .then(|| values.iter().sum::<f64>() / values.len() as f64);
            }
            lookup(summary, segments)
        }
    }
}

/// Follows `path` in `value`: object keys, array indices, and for an
/// array of objects with an `id`, that id.
fn lookup(value: &Value, path: &[String]) -> Option<f64> {
    let mut v = value;
    for segment in path {
        v = match v {
            Value::Object(map) => map.get(segment)?,
            Value::Array(items) => match segment.parse::<usize>() {
                Ok(i) => items.get(i)?,
                Err(_) => items
                    .iter()
                    .find(|item| item.get("id").and_then(Value::as_str) == Some(segment))?,
            },
            _ => return None,
        };
    }
    match v {
        Value::Bool(b) => Some(f64::from(u8::from(*b))),
        v => v.as_f64(),
    }
}

/// `holds`: the claim's test on our mean.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Test {
    AtLeast(f64),
    AtMost(f64),
    Above(f64),
    Below(f64),
    /// Within this fraction of the paper's value.
    Within(f64),
    Between(f64, f64),
}

impl Test {
    pub fn parse(text: &str) -> Result<Test> {
        let words: Vec<&str> = text.split_whitespace().collect();
        let number = |s: &str| -> Result<f64> {
            s.parse::<f64>()
                .ok()
                .filter(|x| x.is_finite())
                .ok_or_else(|| anyhow!("`{s}` is not a number"))
        };
        let test = match words.as_slice() {
            [">=", x] => Test::AtLeast(number(x)?),
            ["<=", x] => Test::AtMost(number(x)?),
            [">", x] => Test::Above(number(x)?),
            ["<", x] => Test::Below(number(x)?),
            ["within", p] => {
                let p = p
                    .strip_suffix('%')
                    .ok_or_else(|| anyhow!("`within` takes a percentage, e.g. `within 20%`"))?;
                Test::Within(number(p)? / 100.0)
            }
            ["between", a, b] => {
                let (a, b) = (number(a)?, number(b)?);
                if a > b {
                    bail!("`between {a} {b}`: the first bound must not exceed the second");
                }
                Test::Between(a, b)
            }
            _ => bail!("expected `>= X`, `<= X`, `> X`, `< X`, `within P%` or `between A B`"),
        };
        Ok(test)
    }

    pub fn check(&self, ours: f64, paper: f64) -> bool {
        match *self {
            Test::AtLeast(x) => ours >= x,
            Test::AtMost(x) => ours <= x,
            Test::Above(x) => ours > x,
            Test::Below(x) => ours < x,
            Test::Within(p) => (ours - paper).abs() <= p * paper.abs(),
            Test::Between(a, b) => (a..=b).contains(&ours),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn summary() -> Value {
        serde_json::json!({
            "jain_index": 0.9,
            "flows": [
                {"id": 0, "algorithm": "newreno", "goodput_bps": 300.0, "convergence_rtts": null},
                {"id": 1, "algorithm": "vegas", "goodput_bps": 100.0},
                {"id": 2, "algorithm": "vegas", "goodput_bps": 200.0},
            ],
            "links": [{"id": "bottleneck", "utilization": 0.5}],
        })
    }

    #[test]
    fn a_claims_cause_is_its_notes_first_words_unless_given() {
        let section = |note: &str, cause: Option<Cause>| PaperSection {
            source: "s".into(),
            claim: "c".into(),
            figure: None,
            seeds: Vec::new(),
            choices: Vec::new(),
            note: Some(note.into()),
            cause,
            numbers: Vec::new(),
        };
        for (note, cause) in [
            ("QUIC vs TCP: PTOs", Cause::QuicVsTcp),
            ("ambiguity: tcplib", Cause::Ambiguity),
            ("Cannot express: a second bottleneck", Cause::CannotExpress),
            ("Algorithm: the pseudo code", Cause::Algorithm),
            ("holds, but", Cause::Unclassified),
        ] {
            assert_eq!(Cause::of(&section(note, None)), cause, "{note}");
        }
        let given = section("holds, but", Some(Cause::Ambiguity));
        assert_eq!(Cause::of(&given), Cause::Ambiguity);
    }

    #[test]
    fn expressions_follow_paths_select_by_algorithm_and_compute_left_to_right() {
        let s = summary();
        let eval = |text: &str| Expr::parse(text).unwrap().eval(&s);
        assert_eq!(eval("flows.0.goodput_bps / flows.1.goodput_bps"), Some(3.0));
        assert_eq!(eval("flows[vegas].goodput_bps"), Some(150.0));
        assert_eq!(eval("flows[*].goodput_bps * 0.01"), Some(2.0));
        assert_eq!(
            eval("flows[newreno].goodput_bps / flows[vegas].goodput_bps"),
            Some(2.0)
        );
        assert_eq!(eval("links.bottleneck.utilization * 100 / 2"), Some(25.0));
        assert_eq!(eval("jain_index"), Some(0.9));
        assert_eq!(eval("flows.0.convergence_rtts"), None, "null is no value");
        assert_eq!(eval("flows.7.goodput_bps"), None);
        assert_eq!(eval("flows[cubic].goodput_bps"), None);
    }

    #[test]
    fn bad_expressions_and_tests_say_what_is_allowed() {
        for bad in [
            "",
            "flows.0.goodput_bps /",
            "flows..x",
            "links[x].id",
            "a + b",
        ] {
            assert!(Expr::parse(bad).is_err(), "{bad}");
        }
        for bad in ["", "== 1", ">= x", "within 20", "between 3 1", ">= inf"] {
            assert!(Test::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn tests_check_our_mean_against_the_claim() {
        assert!(Test::parse(">= 1").unwrap().check(1.0, 5.0));
        assert!(!Test::parse("> 1").unwrap().check(1.0, 5.0));
        assert!(Test::parse("within 20%").unwrap().check(110.0, 100.0));
        assert!(!Test::parse("within 20%").unwrap().check(121.0, 100.0));
        assert!(Test::parse("between 0.5 2").unwrap().check(2.0, 0.0));
        assert!(Test::parse("< 3").unwrap().check(2.9, 0.0));
        assert!(Test::parse("<= 3").unwrap().check(3.0, 0.0));
    }
}
