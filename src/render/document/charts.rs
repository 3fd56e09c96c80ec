//! Stage 6, rendering: the HTML report's pictures as SVG text (plotters' SVG backend,
//! into a string): the changes with their 95% intervals (a forest plot), each cell's
//! per-round costs over time per label with its runs shaded, and the costs'
//! distributions as `--plot` draws them. Draws what the report computed, nothing else.
//! The features' sections draw their own pictures for the page.

use plotters::prelude::*;

use crate::analyze::compare::{Comparison, Row};
use crate::machine::jdk::short_jdk;
use crate::render::plot::COLORS;
use crate::render::section::{Figure, Picture};
use crate::render::{plot, table};

fn err(e: impl std::fmt::Display) -> String {
    e.to_string()
}

fn cell_name(key: &[String; 4]) -> String {
    let [jdk, gc, heap, variant] = key;
    format!("{} {gc} {heap} {variant}", short_jdk(jdk))
}

/// One change of the forest plot: a cell in a label against the baseline, in %.
struct Change {
    name: String,
    percent: f64,
    interval: Option<(f64, f64)>,
    marked: bool,
    color: RGBColor,
}

fn changes(cmp: &Comparison) -> Vec<Change> {
    let mut out = Vec::new();
    for row in &cmp.rows {
        for (j, entry) in row.entries.iter().enumerate() {
            let column = &cmp.columns[j];
            let Some(ch) = entry.as_ref().and_then(|e| e.change) else {
                continue;
            };
            let Some(percent) = ch.percent.filter(|_| !column.baseline) else {
                continue;
            };
            out.push(Change {
                name: format!("{} {}", cell_name(&row.key), column.letter),
                percent,
                interval: ch.percent_interval.map(|i| (i.low, i.high)),
                marked: ch.significant,
                color: COLORS[j % COLORS.len()],
            });
        }
    }
    out
}

/// The changes against the baseline, in %, each with its interval at the level the
/// table states (a filled point: marked `*` in the table; no line: no interval, too
/// few rounds).
pub(super) fn forest(cmp: &Comparison) -> Figure {
    let level =
        crate::render::compare::change_confidence(cmp).map_or(cmp.confidence, |(_, level)| level);
    let caption = format!(
        "Change of each cell's cost against the baseline {}, in %, with its {} interval, as in the table. A filled point is marked *, because its interval excludes 0. A point without a line has too few rounds for an interval.",
        cmp.baseline,
        crate::render::table::confidence(level)
    );
    let rows = changes(cmp);
    let mut svg = String::new();
    let height = 90 + 34 * rows.len().max(1) as u32;
    let drawn = forest_on(
        &rows,
        &SVGBackend::with_string(&mut svg, (1000, height)).into_drawing_area(),
    );
    Figure {
        picture: drawn.map(|()| Picture::Inline(svg)),
        caption,
    }
}

fn forest_on<DB: DrawingBackend>(
    rows: &[Change],
    root: &DrawingArea<DB, plotters::coord::Shift>,
) -> Result<(), String>
where
    DB::ErrorType: 'static,
{
    root.fill(&WHITE).map_err(err)?;
    let (lo, hi) = rows
        .iter()
        .flat_map(|r| {
            let (a, b) = r.interval.unwrap_or((r.percent, r.percent));
            [a, b, r.percent]
        })
        .fold((0.0f64, 0.0f64), |(lo, hi), v| (lo.min(v), hi.max(v)));
    let pad = ((hi - lo) * 0.08).max(1.0);
    let n = rows.len().max(1);
    let names: Vec<String> = rows.iter().map(|r| r.name.clone()).collect();
    // Rows top down, so the first row is at the highest y.
    let name_of = |y: &f64| {
        let i = y.round();
        if (y - i).abs() < 1e-6 && i >= 0.0 && (i as usize) < names.len() {
            names[names.len() - 1 - i as usize].clone()
        } else {
            String::new()
        }
    };
    let mut chart = ChartBuilder::on(root)
        .caption("change against the baseline, %", ("sans-serif", 16))
        .margin(12)
        .x_label_area_size(32)
        .y_label_area_size(300)
        .build_cartesian_2d((lo - pad)..(hi + pad), -0.5f64..(n as f64 - 0.5))
        .map_err(err)?;
    chart
        .configure_mesh()
        .disable_y_mesh()
        .y_labels(n * 2 + 1)
        .y_label_formatter(&name_of)
        .x_desc("% change of the cost (negative: less startup time)")
        .x_label_formatter(&|v| format!("{v:+.0}%"))
        .draw()
        .map_err(err)?;
    chart
        .draw_series(std::iter::once(PathElement::new(
            vec![(0.0, -0.5), (0.0, n as f64 - 0.5)],
            BLACK.stroke_width(1),
        )))
        .map_err(err)?;
    for (i, r) in rows.iter().enumerate() {
        let y = (rows.len() - 1 - i) as f64;
        if let Some((a, b)) = r.interval {
            chart
                .draw_series([
                    PathElement::new(vec![(a, y), (b, y)], r.color.stroke_width(2)),
                    PathElement::new(vec![(a, y - 0.15), (a, y + 0.15)], r.color.stroke_width(2)),
                    PathElement::new(vec![(b, y - 0.15), (b, y + 0.15)], r.color.stroke_width(2)),
                ])
                .map_err(err)?;
        }
        let style = if r.marked {
            r.color.filled()
        } else {
            r.color.stroke_width(2)
        };
        chart
            .draw_series(std::iter::once(Circle::new((r.percent, y), 5, style)))
            .map_err(err)?;
        chart
            .draw_series(std::iter::once(
                EmptyElement::at((r.percent, y))
                    + Text::new(
                        format!(
                            "{}{}",
                            table::signed_pct(r.percent),
                            if r.marked { "*" } else { "" }
                        ),
                        (8, -18),
                        ("sans-serif", 12),
                    ),
            ))
            .map_err(err)?;
    }
    root.present().map_err(err)?;
    Ok(())
}

/// Per cell, each label's per-round costs in round order, its runs (result files)
/// shaded in turn, over the band of the cost's 95% interval about its trimmed mean.
pub(super) fn over_time(cmp: &Comparison) -> Vec<Figure> {
    cmp.rows
        .iter()
        .map(|row| {
            let labels = row.entries.iter().filter(|e| e.is_some()).count().max(1);
            let mut svg = String::new();
            let drawn = over_time_on(
                cmp,
                row,
                &SVGBackend::with_string(&mut svg, (1000, 40 + 190 * labels as u32))
                    .into_drawing_area(),
            );
            Figure {
                picture: drawn.map(|()| Picture::Inline(svg)),
                caption: format!(
                    "{}: each round's pretouch cost in ms, the time to main() with pretouch less the time without, in the order run from round 1, with one panel a label. Grey and white bands are its runs, one result file each. The blue band is the 95% interval about the cost's {}, which is dashed. A ringed point is a round with an outlier launch.",
                    cell_name(&row.key),
                    row.entries
                        .iter()
                        .flatten()
                        .next()
                        .map_or_else(Default::default, |e| e.measured.cost.cost_estimator)
                        .name()
                ),
            }
        })
        .collect()
}

fn over_time_on<DB: DrawingBackend>(
    cmp: &Comparison,
    row: &Row,
    root: &DrawingArea<DB, plotters::coord::Shift>,
) -> Result<(), String>
where
    DB::ErrorType: 'static,
{
    root.fill(&WHITE).map_err(err)?;
    let (top, body) = root.split_vertically(40);
    top.draw(&Text::new(
        format!("{}: per-round cost over time", cell_name(&row.key)),
        (10, 12),
        ("sans-serif", 16),
    ))
    .map_err(err)?;
    let entries: Vec<(usize, &crate::analyze::report::CellReport)> = row
        .entries
        .iter()
        .enumerate()
        .filter_map(|(j, e)| Some((j, &e.as_ref()?.measured)))
        .collect();
    let values = entries.iter().flat_map(|(_, c)| {
        c.costs
            .iter()
            .map(|r| r.ms)
            .chain(c.cost.cost_ci_low_ms)
            .chain(c.cost.cost_ci_high_ms)
    });
    let (lo, hi) = values.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
        (lo.min(v), hi.max(v))
    });
    let (lo, hi) = if lo.is_finite() { (lo, hi) } else { (0.0, 1.0) };
    let pad = ((hi - lo) * 0.1).max(1.0);
    let rounds = entries
        .iter()
        .map(|(_, c)| c.costs.len())
        .max()
        .unwrap_or(0);
    let areas = body.split_evenly((entries.len().max(1), 1));
    for ((j, cell), area) in entries.iter().zip(areas) {
        let column = &cmp.columns[*j];
        let runs = cell.costs.iter().map(|r| r.run).collect::<Vec<_>>();
        let mut distinct = runs.clone();
        distinct.dedup();
        let caption = format!(
            "{} = {}{}: {} rounds, {} run(s)",
            column.letter,
            column.info.label,
            if column.baseline { " (baseline)" } else { "" },
            cell.costs.len(),
            distinct.len()
        );
        let mut chart = ChartBuilder::on(&area)
            .caption(caption, ("sans-serif", 13))
            .margin(6)
            .x_label_area_size(26)
            .y_label_area_size(56)
            .build_cartesian_2d(
                -0.5f64..(rounds.max(1) as f64 - 0.5),
                (lo - pad)..(hi + pad),
            )
            .map_err(err)?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_desc("round")
            .y_desc("ms")
            .x_labels(rounds.clamp(2, 20))
            .x_label_formatter(&|v| {
                // Whole rounds only, numbered from 1 as every table numbers them.
                if (v - v.round()).abs() < 1e-6 {
                    format!("{:.0}", v + 1.0)
                } else {
                    String::new()
                }
            })
            .y_label_formatter(&|v| format!("{v:.0}"))
            .light_line_style(WHITE)
            .draw()
            .map_err(err)?;
        round_series(&mut chart, cell, &runs, (lo - pad, hi + pad), *j)?;
    }
    root.present().map_err(err)?;
    Ok(())
}

type Chart<'a, DB> = ChartContext<
    'a,
    DB,
    Cartesian2d<plotters::coord::types::RangedCoordf64, plotters::coord::types::RangedCoordf64>,
>;

/// One label's panel: its runs shaded, its interval band, its rounds.
fn round_series<DB: DrawingBackend>(
    chart: &mut Chart<'_, DB>,
    cell: &crate::analyze::report::CellReport,
    runs: &[usize],
    (bottom, top): (f64, f64),
    color: usize,
) -> Result<(), String>
where
    DB::ErrorType: 'static,
{
    // Each run's rounds: a band from its first to its last, grey and white in turn.
    let mut start = 0;
    let mut band = 0;
    while start < runs.len() {
        let end = (start..runs.len())
            .find(|&k| runs[k] != runs[start])
            .unwrap_or(runs.len());
        if band % 2 == 1 {
            chart
                .draw_series(std::iter::once(Rectangle::new(
                    [(start as f64 - 0.5, bottom), (end as f64 - 0.5, top)],
                    RGBColor(232, 232, 232).filled(),
                )))
                .map_err(err)?;
        }
        band += 1;
        start = end;
    }
    let width = runs.len() as f64 - 0.5;
    if let Some((estimate, low, high)) = cell.cost_interval() {
        chart
            .draw_series([Rectangle::new(
                [(-0.5, low), (width, high)],
                RGBColor(200, 220, 245).filled(),
            )])
            .map_err(err)?;
        chart
            .draw_series(DashedLineSeries::new(
                [(-0.5, estimate), (width, estimate)],
                6,
                4,
                RGBColor(30, 80, 160).stroke_width(1),
            ))
            .map_err(err)?;
    }
    let line = COLORS[color % COLORS.len()];
    chart
        .draw_series(LineSeries::new(
            cell.costs.iter().enumerate().map(|(k, r)| (k as f64, r.ms)),
            line.stroke_width(1),
        ))
        .map_err(err)?;
    chart
        .draw_series(
            cell.costs
                .iter()
                .enumerate()
                .map(|(k, r)| Circle::new((k as f64, r.ms), 3, line.filled())),
        )
        .map_err(err)?;
    // Outliers ringed, since red is a label's colour here.
    chart
        .draw_series(
            cell.costs
                .iter()
                .enumerate()
                .filter(|(_, r)| r.outlier)
                .map(|(k, r)| Circle::new((k as f64, r.ms), 7, BLACK.stroke_width(2))),
        )
        .map_err(err)?;
    Ok(())
}

/// The costs' distributions, as `report --plot FILE` draws them.
pub(super) fn distributions(cmp: &Comparison) -> Figure {
    Figure {
        picture: plot::svg(cmp).map(Picture::Inline).map_err(err),
        caption: "Each cell's per-round costs by label: points = rounds, box = quartiles and median, whiskers = min-max (as `report --plot FILE` draws them).".to_owned(),
    }
}
