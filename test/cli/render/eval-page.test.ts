import { describe, expect, it } from 'vitest';
import type { Label } from '../../../src/core/recordings/labels.js';
import { type PublishedTransition, scoreRecordings } from '../../../src/core/recordings/score.js';
import { type EvalPageRecording, renderEvalPage, renderStateTimeline } from '../../../src/cli/render/eval-page.js';
import { forHtml } from '../../../src/core/text/sanitize.js';

const LABELS: Label[] = [
  { t: 0, state: 'idle' },
  { t: 2, state: 'working' },
  { t: 5, state: 'uncertain' },
  { t: 6, state: 'blocked' },
  { t: 8, state: 'idle' },
];
const PUBLISHED: PublishedTransition[] = [
  { t: 0, state: 'idle', stuck: false, winner: 'pack', rule_id: 'prompt' },
  { t: 2.4, state: 'working', stuck: false, winner: 'pack', rule_id: 'spinner' },
  { t: 3, state: 'unknown', stuck: false },
  { t: 3.5, state: 'working', stuck: true },
  { t: 8.3, state: 'done', stuck: false },
];

function reportFor(snapshots: EvalPageRecording['snapshots']): string {
  const input = { file: 'recordings/demo/run.cast', agent: 'demo', labels: LABELS, published: PUBLISHED, durationS: 10 };
  const scored = scoreRecordings([input]);
  const score = scored.files[0];
  if (score === undefined) throw new Error('no score');
  return renderEvalPage([{ score, labels: LABELS, published: PUBLISHED, durationS: 10, snapshots }], { total: scored.total });
}

function embeddedData(html: string): { snapshots: { t: number; text: string }[]; duration: number } {
  const match = /<script type="application\/json" class="report-data">([\s\S]*?)<\/script>/.exec(html);
  if (match?.[1] === undefined) throw new Error('no embedded data');
  return JSON.parse(match[1]) as { snapshots: { t: number; text: string }[]; duration: number };
}

describe('renderEvalPage', () => {
  const snapshots = [
    { t: 0, text: '> ' },
    { t: 4, text: 'Running… </script><script>alert(1)</script> & more' },
  ];
  const html = reportFor(snapshots);

  it('draws the label band above the published band, one segment per state span', () => {
    const labelsAt = html.indexOf('class="band band-labels"');
    const publishedAt = html.indexOf('class="band band-published"');

    expect(labelsAt).toBeGreaterThan(0);
    expect(publishedAt).toBeGreaterThan(labelsAt);
    expect(html.match(/class="seg label"/g)).toHaveLength(5);
    expect(html.match(/class="seg published"/g)).toHaveLength(5);
    expect(html).toContain('fill="url(#hatch)"'); // the uncertain span
    expect(html).toContain('fill="#a855f7"'); // the stuck span
  });

  it('marks every labeled change, the miss and the spurious transitions', () => {
    // Changes: idle→working (detected), working→blocked (missed), blocked→idle (detected).
    expect(html.match(/<line class="change"/g)).toHaveLength(3);
    expect(html.match(/<text class="miss"/g)).toHaveLength(1);
    expect(html).toContain('missed: working → blocked');
    // Spurious: unknown at 3 and stuck at 3.5, both inside the working segment.
    expect(html.match(/<path class="spurious"/g)).toHaveLength(2);
  });

  it('embeds the snapshots as JSON that survives a </script> in screen text', () => {
    const data = embeddedData(html);

    expect(data.snapshots).toEqual(snapshots);
    expect(data.duration).toBe(10);
    expect(html).not.toContain('</script><script>alert(1)');
  });

  it('shows the metrics and escapes text from the recording', () => {
    expect(html).toContain('recordings/demo/run.cast');
    expect(html).toMatch(/accuracy <b>\d+\.\d%<\/b>/);
    expect(forHtml('<b a="x">&\'')).toBe('&#60;b a=&#34;x&#34;&#62;&#38;&#39;');
  });

  it('needs no network: no external URLs, scripts or stylesheets', () => {
    expect(html).not.toMatch(/https?:\/\//);
    expect(html).not.toMatch(/<script[^>]+src=/);
    expect(html).not.toMatch(/<link[^>]+href=/);
    expect(html).not.toMatch(/@import/);
  });

  it('says so when there is nothing to show', () => {
    expect(renderEvalPage([])).toContain('No labeled recordings.');
  });
});

describe('renderStateTimeline (the dashboard’s last hour)', () => {
  it('draws one band of spans from the initial state through each change, with the axis labelled as asked', () => {
    const svg = renderStateTimeline({
      durationS: 100,
      initial: 'none',
      changes: [
        { t: 10, state: 'working' },
        { t: 60, state: 'blocked' },
        { t: 80, state: 'working', stuck: true },
      ],
      label: '<state>',
      tickLabel: (t) => `T${t}`,
    });
    const fills = [...svg.matchAll(/<rect class="seg published"[^>]*fill="([^"]+)"/g)].map((m) => m[1]);
    expect(fills).toEqual(['#f3f4f6', '#3b82f6', '#ef4444', '#a855f7']);
    expect(svg).toContain('&#60;state&#62;');
    expect(svg).not.toContain('<state>');
    expect(svg).toContain('>T0<');
    expect(svg).toContain('>T100<');
  });
});
