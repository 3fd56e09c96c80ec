//! Stage 5, the kernel settings: what a launch's `settings:` value tells of its pretouch
//! method. A setting may write the THP mode, which decides the JDK's pretouch method as
//! much as its flags do (`analyze::method`), so the cell's method reads the mode the
//! launch ran under from here, through `features::analyze::THP_MODES`.
//!
//! A file apart from `analyze.rs`, because the settings' analysis reads the report,
//! whose cells ask this file.

use crate::store::LaunchRecord;

/// The kernel file whose value is the THP mode.
const THP_ENABLED: &str = "transparent_hugepage/enabled";

/// The THP mode a launch's `settings:` value wrote, when it names one.
pub fn thp_mode(launch: &LaunchRecord) -> Option<&str> {
    let read = launch.measured.features.settings.as_deref()?;
    read.values.get(THP_ENABLED).map(String::as_str)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::features::settings::launch::SettingsRead;

    #[test]
    fn the_mode_is_the_one_a_launchs_setting_read_and_none_without_a_setting() {
        let mut launch = crate::fixtures::launch(0, true, 300.0);
        assert_eq!(thp_mode(&launch), None);
        let values = [(THP_ENABLED.to_owned(), "always".to_owned())];
        launch.measured.features.settings = Some(Box::new(SettingsRead {
            name: "thp".into(),
            values: values.into(),
        }));
        assert_eq!(thp_mode(&launch), Some("always"));
        let read = launch.measured.features.settings.as_mut().unwrap();
        read.values.clear();
        assert_eq!(thp_mode(&launch), None, "a setting that names no mode");
    }
}
