import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/jimiphoto.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2026, 5, 1), transport: 'http', config: {}, session: {} });
const JPEG = Buffer.from('ffd8ffe066616b656a706567', 'hex');

function upload(callback: Record<string, unknown> | undefined, file: Buffer | null = JPEG, filename = 'ALDW_CH1.jpg') {
  const parts: Buffer[] = [];
  if (file) parts.push(Buffer.from(`--b\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: image/jpeg\r\n\r\n`), file, Buffer.from('\r\n'));
  parts.push(Buffer.from('--b\r\nContent-Disposition: form-data; name="sign"\r\n\r\nunverified\r\n'));
  if (callback) parts.push(Buffer.from(`--b\r\nContent-Disposition: form-data; name="callbackBody"\r\n\r\n${JSON.stringify(callback)}\r\n`));
  parts.push(Buffer.from('--b--\r\n'));
  return protocol.decodeHttp!({ method: 'POST', uri: '/upload', headers: { 'content-type': 'multipart/form-data; boundary=b' }, body: Buffer.concat(parts) }, ctx());
}

describe('jimiphoto answers', () => {
  it('answers 200 with the JSON success body once the photo is stored', () => {
    const r = upload({ imei: '865478070305877', alarmTime: 1781089614, lat: '-27.263320', lng: '153.037503', mimeType: 'image/jpeg' });
    expect(r.status).toBe(200);
    expect(r.body).toBe('{"code":200,"message":"the high success"}');
  });
  it('answers 400 missing field without the file or the callback body', () => {
    expect(upload(undefined)).toEqual({ status: 400, body: '{"code":400,"message":"missing field"}' });
    expect(upload({ imei: '865478070305877' }, null)).toEqual({ status: 400, body: '{"code":400,"message":"missing field"}' });
  });
});

describe('jimiphoto decoding', () => {
  it('keeps the photo as the record image, placed where the callback says', () => {
    const r = upload({ imei: '865478070305877', alarmTime: 1781089614, lat: '-27.263320', lng: '153.037503', mimeType: 'image/jpeg', businessType: 'eventAttachment', eventType: null, instructionId: '3033' });
    expect(r.deviceId).toBe('865478070305877');
    expect(r.records).toEqual([{ time: 1781089614000, valid: true, lat: -27.26332, lng: 153.037503, attributes: { image: '', businessType: 'eventAttachment', instructionId: '3033' } }]);
    expect(r.media).toEqual([{ record: 0, attribute: 'image', data: JPEG, extension: 'jpg' }]);
  });
  it('keeps a video as the record video, without a location when none is given', () => {
    const r = upload({ imei: '865478070305877', alarmTime: 1781089614, lat: '', lng: '', mimeType: 'video/mp4' }, Buffer.from('video'), 'clip.MP4');
    expect(r.records).toEqual([{ time: 1781089614000, attributes: { video: '' } }]);
    expect(r.media).toEqual([{ record: 0, attribute: 'video', data: Buffer.from('video'), extension: 'mp4' }]);
  });
});
