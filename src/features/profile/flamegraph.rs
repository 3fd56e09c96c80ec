//! Flame graphs of the profiled launches (`report --flamegraph DIR`), drawn by inferno:
//! one SVG per cell and label (every sample of its launches with pretouch), and per
//! cell two differential ones of each label against the baseline (red: more in the
//! label, blue: less; both scaled to the same total): in the label's shape, where what
//! grew shows, and in the baseline's, where what shrank or vanished shows. Only the
//! movers are coloured, the functions and categories whose shift exceeds what the
//! profiled launches vary ([`crate::features::profile::analyze::stack_of_mover`]).
//! The rest is grey, because a colour there would be the launches' noise.

use std::io::Cursor;

use inferno::flamegraph::color::{MultiPalette, Palette};
use inferno::flamegraph::{self, Options};

use crate::features::profile::analyze::{CellProfile, CellShift, ProfileReport, stack_of_mover};
use crate::machine::jdk::short_jdk;
use crate::render::common::file_part;

/// The fill inferno gives a frame whose count did not change.
const UNCHANGED_FILL: &str = "fill=\"rgb(250,250,250)\"";
/// The neutral grey of every frame that is no mover.
const NEUTRAL_FILL: &str = "fill=\"rgb(200,200,200)\"";

/// Differential lines (`stack before after`) with the change taken out of every stack
/// that is no mover: its count before is set to its count after, so that inferno draws
/// it as unchanged.
fn movers_only(diff: &str, shift: &CellShift) -> Vec<String> {
    diff.lines()
        .map(|line| {
            let mut parts = line.rsplitn(3, ' ');
            match (parts.next(), parts.next(), parts.next()) {
                (Some(after), Some(_), Some(stack)) if !stack_of_mover(stack, shift) => {
                    format!("{stack} {after} {after}")
                }
                _ => line.to_owned(),
            }
        })
        .collect()
}

fn cell_part(c: &CellProfile) -> String {
    file_part(&format!(
        "{}-{}-{}-{}",
        short_jdk(&c.key[0]),
        c.key[1],
        c.key[2],
        c.key[3]
    ))
}

fn draw(
    lines: &[String],
    title: &str,
    subtitle: &str,
    negate: bool,
    script: bool,
) -> std::io::Result<Vec<u8>> {
    let mut options = Options::default();
    // Without its script (search, zoom) where the report holds the graph as a picture.
    options.no_javascript = !script;
    options.negate_differentials = negate;
    options.title = title.to_owned();
    options.subtitle = Some(subtitle.to_owned());
    options.count_name = "samples".to_owned();
    // Kernel frames (`_[k]`) orange, the JVM's green/yellow, as in Java flame graphs.
    options.colors = Palette::Multi(MultiPalette::Java);
    options.deterministic = true;
    let mut svg = Vec::new();
    flamegraph::from_lines(&mut options, lines.iter().map(String::as_str), &mut svg)?;
    Ok(svg)
}

/// The flame graphs, each with the name of its file in the `--flamegraph` folder, in
/// the order they are written; with inferno's script (search, zoom) when `script`.
pub fn graphs(report: &ProfileReport, script: bool) -> std::io::Result<Vec<(String, Vec<u8>)>> {
    let mut written = Vec::new();
    for c in report.cells.iter().filter(|c| !c.stacks.is_empty()) {
        let name = format!("{}-{}.svg", file_part(&c.label), cell_part(c));
        let svg = draw(
            &c.stacks,
            &format!("{} {}", c.label, cell_title(c)),
            &format!(
                "{} launches with pretouch, {} samples, {} through pretouch frames",
                c.launches_on, c.samples_on, c.pretouch_samples
            ),
            false,
            script,
        )?;
        written.push((name, svg));
    }
    for s in &report.shifts {
        let find = |label: &str| {
            report
                .cells
                .iter()
                .find(|c| c.label == label && c.key == s.key && !c.stacks.is_empty())
        };
        let (Some(base), Some(new)) = (find(&s.baseline), find(&s.label)) else {
            continue;
        };
        // Drawn in the label's shape (what grew shows), then in the baseline's (what
        // shrank or vanished shows), red = more in the label in both.
        for (shape, before, after, negate) in
            [("", base, new, false), ("-baseline-shape", new, base, true)]
        {
            let mut diff = Vec::new();
            inferno::differential::from_readers(
                inferno::differential::Options {
                    normalize: true,
                    ..Default::default()
                },
                Cursor::new(before.stacks.join("\n")),
                Cursor::new(after.stacks.join("\n")),
                &mut diff,
            )?;
            let lines = movers_only(&String::from_utf8_lossy(&diff), s);
            let name = format!(
                "diff-{}-to-{}-{}{shape}.svg",
                file_part(&s.baseline),
                file_part(&s.label),
                cell_part(new)
            );
            let widths = if negate { base } else { new };
            let colours = if !s.tested {
                "no colour: too few profiled launches to tell a mover from noise".to_owned()
            } else if s.categories.iter().chain(&s.functions).any(|x| x.mover) {
                format!("movers only, red: more in {}, blue: less", s.label)
            } else {
                "no colour: nothing moved more than the launches vary".to_owned()
            };
            let svg = draw(
                &lines,
                &format!("{} against {}: {}", s.label, s.baseline, cell_title(new)),
                &format!(
                    "widths: {} ({} samples, both scaled to the same total). {colours}",
                    widths.label, widths.samples_on
                ),
                negate,
                script,
            )?;
            // inferno draws an unchanged frame near-white; grey says "no mover" plainly.
            let svg = String::from_utf8_lossy(&svg).replace(UNCHANGED_FILL, NEUTRAL_FILL);
            written.push((name, svg.into_bytes()));
        }
    }
    Ok(written)
}

fn cell_title(c: &CellProfile) -> String {
    format!(
        "{} {} {} {}",
        short_jdk(&c.key[0]),
        c.key[1],
        c.key[2],
        c.key[3]
    )
}
