//! Stage 6: the comparison drawn as an SVG file (plotters, SVG backend only). One panel
//! per cell; in each, one column per label: every round's pretouch cost as a point
//! (with - without, launched back to back), over a box from the lower to the upper
//! quartile with the median marked and whiskers to the min and max. Rounds with an
//! outlier launch are drawn in red. Computes nothing the report does not.

use plotters::prelude::*;

use plotters::coord::types::RangedCoordf64;

use crate::analyze::compare::{Comparison, Row};
use crate::analyze::report::CellReport;
use crate::machine::jdk::short_jdk;
use crate::stats::interval::Estimator;

/// The labels' colours, in the report's label order (then round again).
pub const COLORS: [RGBColor; 6] = [
    RGBColor(31, 119, 180),
    RGBColor(214, 39, 40),
    RGBColor(44, 160, 44),
    RGBColor(148, 103, 189),
    RGBColor(255, 127, 14),
    RGBColor(23, 190, 207),
];

#[derive(Debug, thiserror::Error)]
#[error("cannot draw the plot: {0}")]
pub struct PlotError(String);

fn err(e: impl std::fmt::Display) -> PlotError {
    PlotError(e.to_string())
}

const PANEL: (u32, u32) = (480, 340);
const PER_LINE: usize = 2;

/// The plot as SVG text: the `--plot` file, and its picture in the HTML report.
pub fn svg(cmp: &Comparison) -> Result<String, PlotError> {
    let mut out = String::new();
    draw_on(
        cmp,
        &SVGBackend::with_string(&mut out, size(cmp)).into_drawing_area(),
    )?;
    Ok(out)
}

/// The columns are named by their letters, as in the text report; the legend says
/// which label each letter stands for, a few to a line.
fn legend(cmp: &Comparison) -> Vec<String> {
    cmp.columns
        .iter()
        .map(|c| format!("{} = {}", c.letter, c.info.label))
        .collect::<Vec<_>>()
        .chunks(4)
        .map(|chunk| chunk.join(",  "))
        .collect()
}

/// The height above the panels: four lines of title, then the legend's lines.
fn header_height(legend_lines: usize) -> u32 {
    16 + 22 * (4 + legend_lines as u32)
}

fn size(cmp: &Comparison) -> (u32, u32) {
    let panels = cmp.rows.len().max(1);
    let across = panels.min(PER_LINE);
    let down = panels.div_ceil(across);
    let header = header_height(legend(cmp).len());
    // Wide enough for the title lines even with one panel.
    (
        (PANEL.0 * across as u32).max(960),
        PANEL.1 * down as u32 + header,
    )
}

fn draw_on<DB: DrawingBackend>(
    cmp: &Comparison,
    root: &DrawingArea<DB, plotters::coord::Shift>,
) -> Result<(), PlotError>
where
    DB::ErrorType: 'static,
{
    let panels = cmp.rows.len().max(1);
    let across = panels.min(PER_LINE);
    let down = panels.div_ceil(across);
    let legend = legend(cmp);
    let header = header_height(legend.len());
    root.fill(&WHITE).map_err(err)?;
    let (top, body) = root.split_vertically(header);
    let estimator = cmp
        .rows
        .iter()
        .flat_map(|r| &r.entries)
        .flatten()
        .map(|e| e.measured.cost.cost_estimator)
        .next()
        .unwrap_or_default();
    let estimator = match estimator {
        Estimator::Median => "median",
        Estimator::TrimmedMean => "20% trimmed mean",
    };
    // One sentence a line, because the SVG backend does not wrap text.
    let title = [
        "Pretouch cost of each round in ms, the launch with pretouch less the one without."
            .to_owned(),
        "Dots are rounds. The box spans the quartiles and their median, and the whiskers the range."
            .to_owned(),
        format!(
            "Above each box is the cost, the {estimator} of the rounds, and its change against {}.",
            cmp.baseline
        ),
        if cmp.outliers_excluded {
            "Outliers are excluded, because --exclude-outliers asked so."
        } else {
            "A red dot is a round with an outlier launch."
        }
        .to_owned(),
    ];
    let lines = title.into_iter().chain(legend);
    for (i, line) in lines.enumerate() {
        top.draw(&Text::new(
            line,
            (10, 10 + 22 * i as i32),
            ("sans-serif", 14),
        ))
        .map_err(err)?;
    }
    let areas = body.split_evenly((down, across));
    for (row, area) in cmp.rows.iter().zip(areas) {
        panel(cmp, row, &area)?;
    }
    root.present().map_err(err)?;
    Ok(())
}

fn panel<DB: DrawingBackend>(
    cmp: &Comparison,
    row: &Row,
    area: &DrawingArea<DB, plotters::coord::Shift>,
) -> Result<(), PlotError>
where
    DB::ErrorType: 'static,
{
    let (lo, hi) = cost_range(row);
    let pad = ((hi - lo) * 0.12).max(1.0);
    let k = cmp.columns.len();
    let names = column_names(cmp);
    let [jdk, gc, heap, variant] = &row.key;
    let caption = format!("{} {gc} {heap} {variant}", short_jdk(jdk));
    let mut chart = ChartBuilder::on(area)
        .caption(caption, ("sans-serif", 15))
        .margin(8)
        .x_label_area_size(28)
        .y_label_area_size(52)
        .build_cartesian_2d(-0.5f64..(k as f64 - 0.5), (lo - pad)..(hi + pad))
        .map_err(err)?;
    let label_of = |x: &f64| {
        let i = x.round();
        if (x - i).abs() < 1e-6 && i >= 0.0 && (i as usize) < names.len() {
            names[i as usize].clone()
        } else {
            String::new()
        }
    };
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(k.max(2) * 2 + 1)
        .x_label_formatter(&label_of)
        .y_desc("ms")
        .y_label_formatter(&|v| format!("{v:.0}"))
        .light_line_style(WHITE)
        .draw()
        .map_err(err)?;
    for (i, entry) in row.entries.iter().enumerate() {
        let Some(e) = entry else { continue };
        let x = i as f64;
        let c = &e.measured;
        draw_box(&mut chart, x, c)?;
        // The table's figures above the column: the cost, and below it the change.
        let cost = c.cost.cost_ms.map_or_else(
            || "failed".to_owned(),
            |v| format!("{} ms", crate::render::table::whole_ms(v)),
        );
        let change = e.change.and_then(|ch| {
            Some(format!(
                "{}{}",
                crate::render::table::signed_pct(ch.percent?),
                if ch.significant { "*" } else { "" }
            ))
        });
        for (text, height) in [(Some(cost), 0.85), (change, 0.45)] {
            let Some(text) = text else { continue };
            chart
                .draw_series(std::iter::once(Text::new(
                    text,
                    (x - 0.3, hi + pad * height),
                    ("sans-serif", 12),
                )))
                .map_err(err)?;
        }
        // Every round's cost, spread sideways so that equal values stay visible.
        chart
            .draw_series(c.costs.iter().enumerate().map(|(j, r)| {
                let dx = ((j % 9) as f64 - 4.0) * 0.035;
                let color = if r.outlier {
                    RED
                } else {
                    RGBColor(30, 80, 160)
                };
                Circle::new((x + dx, r.ms), 3, color.filled())
            }))
            .map_err(err)?;
    }
    Ok(())
}

/// The lowest and highest round cost of the row's entries; 0..1 with none.
fn cost_range(row: &Row) -> (f64, f64) {
    let (lo, hi) = row
        .entries
        .iter()
        .flatten()
        .flat_map(|e| e.measured.costs.iter().map(|c| c.ms))
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
            (lo.min(v), hi.max(v))
        });
    if lo.is_finite() { (lo, hi) } else { (0.0, 1.0) }
}

/// The columns' names under the x axis: their letters, the baseline's marked.
fn column_names(cmp: &Comparison) -> Vec<String> {
    cmp.columns
        .iter()
        .map(|c| {
            if c.baseline {
                format!("{} (base)", c.letter)
            } else {
                c.letter.clone()
            }
        })
        .collect()
}

/// The box of one column at `x`: quartiles, median and whiskers to min and max.
fn draw_box<DB: DrawingBackend>(
    chart: &mut ChartContext<'_, DB, Cartesian2d<RangedCoordf64, RangedCoordf64>>,
    x: f64,
    c: &CellReport,
) -> Result<(), PlotError>
where
    DB::ErrorType: 'static,
{
    let (Some(q1), Some(q3), Some(min), Some(max), Some(med)) = (
        c.cost.cost_q1_ms,
        c.cost.cost_q3_ms,
        c.cost.cost_min_ms,
        c.cost.cost_max_ms,
        c.cost.cost_median_ms,
    ) else {
        return Ok(());
    };
    let grey = RGBColor(120, 120, 120);
    chart
        .draw_series([
            Rectangle::new(
                [(x - 0.25, q1), (x + 0.25, q3)],
                RGBColor(200, 215, 235).filled(),
            ),
            Rectangle::new([(x - 0.25, q1), (x + 0.25, q3)], grey.stroke_width(1)),
        ])
        .map_err(err)?;
    chart
        .draw_series([
            PathElement::new(
                vec![(x - 0.25, med), (x + 0.25, med)],
                BLACK.stroke_width(2),
            ),
            PathElement::new(vec![(x, q3), (x, max)], grey.stroke_width(1)),
            PathElement::new(vec![(x, q1), (x, min)], grey.stroke_width(1)),
            PathElement::new(vec![(x - 0.1, max), (x + 0.1, max)], grey.stroke_width(1)),
            PathElement::new(vec![(x - 0.1, min), (x + 0.1, min)], grey.stroke_width(1)),
        ])
        .map_err(err)?;
    Ok(())
}
