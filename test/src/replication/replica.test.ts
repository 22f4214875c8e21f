import { describe, expect, it } from 'vitest';
import {
  describeReplica,
  litestreamConfig,
  parseGenerations,
  parseGoDuration,
  parseReplicaUrl,
  parseSyncInterval,
  replicationLag,
} from '../../../src/index.js';

describe('replica URLs', () => {
  it('reads a file:// folder, an S3 bucket with its endpoint and an SFTP host with its key', () => {
    expect(parseReplicaUrl('file:///srv/replica')).toEqual({ type: 'file', path: '/srv/replica' });
    expect(
      parseReplicaUrl(
        's3://bkt/brains/main?endpoint=http://127.0.0.1:9000&region=eu&force-path-style=true',
      ),
    ).toEqual({
      type: 's3',
      bucket: 'bkt',
      path: 'brains/main',
      endpoint: 'http://127.0.0.1:9000',
      region: 'eu',
      forcePathStyle: true,
    });
    expect(parseReplicaUrl('sftp://backup@nas.lan:2222/srv/brain?key-path=/etc/brain/id')).toEqual({
      type: 'sftp',
      host: 'nas.lan:2222',
      user: 'backup',
      path: '/srv/brain',
      keyPath: '/etc/brain/id',
    });
    expect(parseReplicaUrl('sftp://backup@nas.lan/srv/brain')).toMatchObject({
      host: 'nas.lan:22',
    });
  });

  it('refuses what Litestream cannot use, naming the option', () => {
    const refused: Array<[string, RegExp]> = [
      ['', /--to: must be a replica URL/],
      ['replica', /--to: "replica" is not a URL/],
      ['http://host/x', /--to: http:\/\/ is not a replica/],
      ['file://host/dir', /--to: a file:\/\/ URL names a local folder/],
      ['file:///', /--to: must name a folder/],
      ['s3://bkt', /--to: an s3:\/\/ URL names a path/],
      ['s3://bkt/x?secret=1', /--to: s3:\/\/ takes no "secret" parameter/],
      ['s3://bkt/x?force-path-style=yes', /force-path-style must be true or false/],
      ['sftp://host/x', /names a user/],
      ['sftp://u:pw@host/x', /must not hold a password/],
      ['sftp://u@host/x?key-path=id_rsa', /key-path must be an absolute path/],
    ];
    for (const [url, words] of refused)
      expect(() => parseReplicaUrl(url, '--to'), url).toThrow(words);
    expect(() => parseReplicaUrl('nope', '--from')).toThrow(/^--from: /);
  });

  it('says a replica again as a URL without its parameters', () => {
    expect(describeReplica(parseReplicaUrl('sftp://b@nas/srv?key-path=/k'))).toBe(
      'sftp://b@nas:22/srv',
    );
  });
});

describe('the Litestream config', () => {
  it('names the database and the replica field by field, quoting every path', () => {
    const yaml = litestreamConfig('/data/my "brain".db', parseReplicaUrl('s3://bkt/b?region=eu'));
    expect(yaml).toBe(
      [
        'dbs:',
        '  - path: "/data/my \\"brain\\".db"',
        '    replicas:',
        '      - type: s3',
        '        bucket: "bkt"',
        '        path: "b"',
        '        region: "eu"',
        '        sync-interval: 1s',
        '',
      ].join('\n'),
    );
  });

  it('looks at the WAL as often as it syncs when that is under a second', () => {
    const yaml = litestreamConfig('/b.db', parseReplicaUrl('file:///r'), { syncInterval: '100ms' });
    expect(yaml).toContain('    monitor-interval: 100ms\n');
    expect(yaml).toContain('        sync-interval: 100ms\n');
    expect(litestreamConfig('/b.db', parseReplicaUrl('file:///r'))).not.toContain('monitor');
  });

  it('takes sync intervals Litestream reads and refuses others', () => {
    expect(parseSyncInterval('250ms')).toBe('250ms');
    for (const bad of ['0s', '1.5s', '1 s', 'soon', '-1s'])
      expect(() => parseSyncInterval(bad), bad).toThrow(/--sync-interval: must be a duration/);
  });
});

describe('replication lag from litestream generations', () => {
  it('reads Go durations', () => {
    expect(parseGoDuration('618ms')).toBe(618);
    expect(parseGoDuration('-433ms')).toBe(-433);
    expect(parseGoDuration('1m2.5s')).toBe(62_500);
    expect(parseGoDuration('0')).toBe(0);
    expect(parseGoDuration('later')).toBeUndefined();
  });

  it('takes the lag of the generation that received data last', () => {
    const out = [
      'name  generation        lag     start                 end',
      'file  a2f1720451d49b73  2h0m0s  2026-11-27T00:45:17Z  2026-11-27T00:45:18Z',
      'file  b9c0000000000000  1.5s    2026-11-27T02:45:17Z  2026-11-27T02:45:18Z',
    ].join('\n');
    const generations = parseGenerations(out);
    expect(generations).toHaveLength(2);
    expect(replicationLag(generations)).toMatchObject({
      generation: 'b9c0000000000000',
      lagMs: 1500,
    });
    expect(replicationLag(parseGenerations('name generation lag start end\n'))).toBeUndefined();
  });
});
