//! A feature's options of `pretouch report`. `features::report_options` lists the
//! features with options, one line each, and [`feature_options!`] makes each list one
//! struct that the report's command line flattens. What the report does with a
//! feature's options is asked of the feature, through [`FeatureOptions`], so the
//! report's core names no feature.

/// A feature's options of `pretouch report`. Each method has a default of nothing.
pub trait FeatureOptions: Default {
    /// The feature's options of the report a run prints at its end, given whether the
    /// run was profiled.
    fn after_run(_profiled: bool) -> Self {
        Self::default()
    }

    /// The options ask for the feature's report instead of the launches' report, so
    /// the results need not hold launches.
    fn instead_of_launches(&self) -> bool {
        false
    }
}

/// A list of the features' options: `$list` holds each feature's options in its field
/// `$feature`, flattened in the list's order, which is the order `--help` and the shell
/// completions show them. So a feature with report options is one line of the list.
macro_rules! feature_options {
    ($(#[$doc:meta])* pub struct $list:ident { $($feature:ident: $options:ty,)* }) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Default, PartialEq, Eq, clap::Args)]
        pub struct $list {
            $(
                #[command(flatten)]
                pub $feature: $options,
            )*
        }

        impl $list {
            /// The options of the report a run prints at its end, given whether the run
            /// was profiled, as each feature says.
            pub fn after_run(profiled: bool) -> $list {
                $list {
                    $($feature: <$options as crate::analyze::feature_options::FeatureOptions>::after_run(profiled),)*
                }
            }

            /// A feature's report is asked for instead of the launches' report, so the
            /// results need not hold launches.
            pub fn instead_of_launches(&self) -> bool {
                false $(|| crate::analyze::feature_options::FeatureOptions::instead_of_launches(&self.$feature))*
            }
        }
    };
}
pub(crate) use feature_options;
