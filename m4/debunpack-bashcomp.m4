dnl Where the bash completion goes.  bash-completion's pkg-config file names
dnl its completionsdir; it is asked with its datadir set to ours, so that
dnl the path stays under --prefix (make distcheck installs as a user).
dnl --with-bash-completion-dir=DIR chooses DIR, =no installs none.
AC_DEFUN([DEBUNPACK_BASH_COMPLETION], [
  AC_REQUIRE([PKG_PROG_PKG_CONFIG])
  AC_ARG_WITH([bash-completion-dir],
    [AS_HELP_STRING([--with-bash-completion-dir=DIR],
      [install the bash completion in DIR (default: bash-completion's
       completionsdir under DATADIR, else DATADIR/bash-completion/completions)])],
    [], [with_bash_completion_dir=yes])
  AS_CASE([$with_bash_completion_dir],
    [yes], [
      save_PKG_CONFIG=$PKG_CONFIG
      PKG_CONFIG="$PKG_CONFIG --define-variable=datadir=\${datadir}"
      PKG_CHECK_VAR([bashcompletiondir], [bash-completion], [completionsdir], [],
        [bashcompletiondir='${datadir}/bash-completion/completions'])
      PKG_CONFIG=$save_PKG_CONFIG],
    [no], [bashcompletiondir=],
    [bashcompletiondir=$with_bash_completion_dir])
  AC_MSG_CHECKING([where to install the bash completion])
  AC_MSG_RESULT([${bashcompletiondir:-nowhere}])
  AC_SUBST([bashcompletiondir])
  AM_CONDITIONAL([ENABLE_BASH_COMPLETION], [test -n "$bashcompletiondir"])
])
