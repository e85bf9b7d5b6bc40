% Can this GNU Octave print a figure without a display, as solve_sudoku.m does for sudoku_figure?
% `make solvers` and tests/formats/test_matlab.py run it (headless: --no-window-system) with
% probe_png set to the file to write:
%   octave-cli --no-window-system --eval "probe_png = '/tmp/p.png'; run('tests/formats/octave_figure_probe.m')"
% It prints one line: "figure probe: printed with TOOLKIT" or "figure probe: cannot print: REASON"
% (without gnuplot: "no graphics toolkits are available!"); the caller also checks the PNG.
% REASON ends with Octave's font warning in brackets when there was one: without its default font
% (Debian: FreeSans.otf from fonts-freefont-otf, which Octave loads by path, not through
% fontconfig) Octave can create no axes, and its error ("ft_text_renderer: invalid bounding box,
% cannot render") does not name the font; the warning before it does.
probe_log = [probe_png '.log'];
try
  warning('off', 'Octave:gnuplot-graphics');   % the gnuplot toolkit's "discouraged" notice is not a failure
  warning('off', 'backtrace');
  diary(probe_log);   % the warnings, for the reason if the figure fails
  probe_figure = figure('Visible', 'off');
  plot(1:3);
  print(probe_figure, probe_png, '-dpng');
  close(probe_figure);
  diary('off');
  printf('figure probe: printed with %s\n', graphics_toolkit());
catch probe_error
  diary('off');
  probe_reason = probe_error.message;
  probe_warned = regexp(fileread(probe_log), '(?<=warning: )[^\n]*font[^\n]*', 'match', 'once');
  if ~isempty(probe_warned)
    probe_reason = sprintf('%s (%s)', probe_reason, probe_warned);
  end
  printf('figure probe: cannot print: %s\n', probe_reason);
end
if exist(probe_log, 'file')
  delete(probe_log);
end
